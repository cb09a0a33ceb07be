// The audit trail over requests of every outcome (verifier contract §6): one event per request (plus one per batch
// item), a rotated file chain that `ambit audit verify --rotated --genesis` accepts whole, and no value the callers
// or the source sent (identifiers, attribute and record values, keys, tokens, free names) anywhere in the audit
// files or the logs, in any case, percent-encoded or as \u escapes.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { capturedLog } from '../helpers/captured-log.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { TEST_KEYS } from '../helpers/relay-harness.ts';
import { runCli } from '../helpers/run-cli.ts';
import {
  aliveByAttributeClaim,
  CALLER_KEYS,
  startTestVerifier,
  type TestVerifier,
  VERIFIER_AUDIT_SECRET,
} from '../helpers/verifier-harness.ts';

const NID = 'SwpNid0001';
const PID = 'SwpPid0002';
const PASSPORT = 'SwpPass0003';
const RECORD_ONLY = 'SwpRec0004';
const BIRTH = '1903-04-05';
/** Sent by callers (or by the source) and never to be written. */
const SENT = [NID, PID, PASSPORT, RECORD_ONLY, BIRTH, 'SwpMiss0005', 'SwpClaim0006', 'SwpScheme0007'];
const BAD_KEY = 'SwpBadKey0008-000000000000000000000';
const BAD_TOKEN = 'SwpToken0009.eyJ.sig';
const SECRETS = [
  BAD_KEY,
  BAD_TOKEN,
  ...Object.values(CALLER_KEYS),
  TEST_KEYS.verifier_service,
  VERIFIER_AUDIT_SECRET,
];

const TARGET = {
  type: 'person',
  identifiers: [
    { scheme: 'national_id', value: NID },
    { scheme: 'person_id', value: PID },
  ],
};
const BATCH = '/v1/batch-evaluations';

/** A value as it could hide in a byte stream: any case, percent-encoded, JSON \u escaped, base64, hex. */
function disguises(value: string): string[] {
  const chars = [...value];
  return [
    value,
    encodeURIComponent(value),
    chars.map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
    chars.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    Buffer.from(value).toString('base64'),
    Buffer.from(value).toString('hex'),
  ].map((text) => text.toLowerCase());
}

function person(request: IncomingMessage, response: ServerResponse): void {
  const query = new URL(request.url ?? '', 'http://x').searchParams;
  const row = { national_id: NID, person_id: PID, passport: PASSPORT, deceased: false, birth_date: BIRTH };
  const asked = [
    query.get('national_id'),
    query.get('passport'),
    ...(query.get('national_id.in')?.split(',') ?? []),
  ];
  const data = asked.includes(NID) || asked.includes(PASSPORT) ? [{ ...row, name: RECORD_ONLY }] : [];
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ data, pagination: { has_more: false } }));
}

describe('audit trail over every outcome', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  const log = capturedLog('trace');
  const requestIds: string[] = [];
  let batchItems = 0;

  before(async () => {
    upstream = await startFakeUpstream(person);
    verifier = await startTestVerifier({
      relays: { civil: upstream.url },
      deps: { logger: log.logger },
      edit: (text) =>
        text
          .replace(/^( {2}sink: ).*$/m, '$1file')
          // A few records per file: the requests below rotate it many times.
          .replace(/^( {2}hash_secret_env: .*)$/m, '$1\n  rotate: { max_size_mb: 0.004, max_files: 1000 }')
          .replace(
            '  claims:\n',
            `  claims:\n${aliveByAttributeClaim({ id: 'alive_by_passport', title: 'Alive by passport', attribute: 'passport', field: 'passport' })}`,
          ),
    });
    const sent = async (response: Promise<{ statusCode: number; headers: Record<string, unknown> }>) => {
      const answer = await response;
      requestIds.push(String(answer.headers['x-request-id']));
      return answer;
    };
    const ok = await sent(
      verifier.evaluate({ target: TARGET, claims: ['person_alive', 'birth_date'], disclosure: 'value' }),
    );
    assert.equal(ok.statusCode, 200);
    const evaluationId = JSON.parse((ok as unknown as { body: string }).body).results[0].evaluation_id;
    await sent(
      verifier.evaluate({
        target: { type: 'person', attributes: { passport: PASSPORT } },
        claims: ['alive_by_passport'],
      }),
    );
    await sent(
      verifier.evaluate({
        target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'SwpMiss0005' }] },
        claims: ['person_alive'],
      }),
    );
    await sent(verifier.evaluate({ target: TARGET, claims: ['SwpClaim0006'] }));
    await sent(
      verifier.evaluate({
        target: { type: 'person', identifiers: [{ scheme: 'SwpScheme0007', value: NID }] },
        claims: ['person_alive'],
      }),
    );
    await sent(
      verifier.evaluate({ target: TARGET, claims: ['person_alive'] }, { headers: { 'x-api-key': BAD_KEY } }),
    );
    await sent(
      verifier.evaluate(
        { target: TARGET, claims: ['person_alive'] },
        { headers: { 'x-api-key': '', authorization: `Bearer ${BAD_TOKEN}` } },
      ),
    );
    await sent(verifier.evaluate({ target: TARGET, claims: ['household_enrolled'] }, { as: 'civil_only' }));
    await sent(
      verifier.evaluate(
        { target: TARGET, claims: ['person_alive'] },
        { headers: { 'data-purpose': `https://x.example/${NID}` } },
      ),
    );
    await sent(verifier.evaluate({ target: TARGET, claims: ['person_alive'], pad: NID.repeat(120_000) }));
    await sent(verifier.evaluate({ target: TARGET, claims: ['plugin_check'] }));
    await sent(verifier.evaluate({ target: TARGET, claims: ['ledger_entry'] }));
    const items = [
      { target: TARGET },
      { target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'SwpMiss0005' }] } },
      { target: { type: 'person', identifiers: [{ scheme: 'SwpScheme0007', value: PID }] } },
    ];
    const key = { 'idempotency-key': 'sweep-1' };
    await sent(verifier.post(BATCH, { items, claims: ['person_alive'] }, { headers: key }));
    batchItems += items.length;
    await sent(verifier.post(BATCH, { items, claims: ['person_alive'] }, { headers: key }));
    await sent(verifier.post(BATCH, { items: items.slice(1), claims: ['person_alive'] }, { headers: key }));
    await sent(
      verifier.post(BATCH, { items: Array(101).fill({ target: TARGET }), claims: ['person_alive'] }),
    );
    await sent(verifier.post(`/v1/evaluations/${evaluationId}/render`, {}));
    await sent(verifier.post(`/v1/evaluations/${evaluationId}/render`, {}, { as: 'civil_only' }));
    await sent(verifier.get('/.well-known/evidence-service', { as: 'full' }));
    await sent(verifier.get(`/v1/claims?q=${NID}`, { as: 'full' }));
    await sent(verifier.get(`/v1/claims/${encodeURIComponent(PID)}`, { as: 'full' }));
    await sent(verifier.get(`/${NID}`, { as: 'full' }));
    await sent(verifier.get('/v1/claims', { headers: { authorization: `Bearer ${BAD_TOKEN}` } }));
    // Closed: every record is in the files before they are read.
    await verifier.verifier.close();
  });
  after(async () => {
    await verifier?.close();
    await upstream?.close();
  });

  const files = () =>
    readdirSync(dirname(verifier.auditPath)).map((name) => join(dirname(verifier.auditPath), name));

  it('writes one event per request and per batch item, in a rotated chain that verifies from its start', async () => {
    const audit = files().filter((file) => /audit\.jsonl(\.\d+)?$/.test(file));
    assert.ok(audit.length > 3, `the file rotated (${audit.length} files)`);
    const records = audit.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line).record as Record<string, unknown>),
    );
    for (const id of requestIds) {
      const own = records.filter(
        (record) => record.request_id === id && record.endpoint_kind !== 'batch_item',
      );
      assert.equal(own.length, 1, `one event for request ${id}`);
    }
    assert.equal(records.filter((record) => record.endpoint_kind === 'batch_item').length, batchItems);
    assert.equal(records.length, requestIds.length + batchItems);
    const args = [
      'audit',
      'verify',
      '--file',
      verifier.auditPath,
      '--secret-env',
      'S',
      '--rotated',
      '--genesis',
    ];
    const verified = await runCli(args, { S: VERIFIER_AUDIT_SECRET });
    assert.equal(verified.code, 0, verified.err.join('\n'));
    assert.match(
      verified.out[0] ?? '',
      new RegExp(`^ok: ${records.length} records verified, from the start`),
    );
  });

  it('keeps every value sent, and every key, token and secret, out of the audit files and the logs', () => {
    const audit = files()
      .map((file) => readFileSync(file, 'latin1'))
      .join('\n')
      .toLowerCase();
    const logs = log.lines.join('').toLowerCase();
    // The requests above were audited: files that could not be read back would hide nothing.
    assert.ok(audit.includes('"evidenceauditevent"'), 'the audit files hold the events');
    for (const value of [...SENT, ...SECRETS]) {
      for (const disguise of disguises(value)) {
        assert.ok(!audit.includes(disguise), `${value} is in the audit files as ${disguise}`);
        assert.ok(!logs.includes(disguise), `${value} is in the logs as ${disguise}`);
      }
    }
  });
});
