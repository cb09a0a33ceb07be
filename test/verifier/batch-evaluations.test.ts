// POST /v1/batch-evaluations against two real demo relays: per-item outcomes, `.in` batching with one upstream
// request per source binding, de-duplication, fallback when a relay refuses the bulk form, stored evaluations,
// one audit event per item, and the idempotency key.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';
import { assertProblem, ULID_PATTERN } from '../helpers/http-checks.ts';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import {
  aliveByAttributeClaim,
  CCCEV,
  CLAIM_RESULT,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
  VERIFIER_AUDIT_SECRET,
} from '../helpers/verifier-harness.ts';
import { type Row, readDemoData } from '../relay/read-demo-data.ts';

const BATCH = '/v1/batch-evaluations';

/** The demo relays with `.in` allowed on the verifier's lookup fields (and no equality-only required filter). */
const civilAllowsIn = (text: string) =>
  text
    .replace('          required_filters: [person_id, national_id]\n', '')
    .replace('- { field: national_id, ops: [eq] }', '- { field: national_id, ops: [eq, in] }');
const socialAllowsIn = (text: string) =>
  text.replace(
    '- { field: head_of_household_person_id, ops: [eq] }',
    '- { field: head_of_household_person_id, ops: [eq, in] }',
  );

async function listen(relay: TestRelay): Promise<string> {
  await relay.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(relay.app.server.address() as AddressInfo).port}`;
}

function rowReads(relay: TestRelay): Record<string, unknown>[] {
  return relay.auditRecords().filter((record) => record.endpoint_kind === 'rows');
}

const person = (row: Row) => ({
  type: 'person',
  identifiers: [
    { scheme: 'national_id', value: String(row.national_id) },
    { scheme: 'person_id', value: String(row.person_id) },
  ],
});

interface Item {
  input_index: number;
  evaluation_id?: string;
  target_ref: { handle: string } | null;
  status: string;
  claim_results: Record<string, unknown>[];
  errors: { code: string; title: string; retryable: boolean; claim_id?: string }[];
}

describe('batch evaluations', () => {
  let civil: TestRelay;
  let social: TestRelay;
  let plainCivil: TestRelay;
  let plainSocial: TestRelay;
  let bulk: TestVerifier;
  let plain: TestVerifier;
  let refused: TestVerifier;
  let coalescing: TestVerifier;
  let heads: Row[];
  let deceased: Row;

  before(async () => {
    [civil, social, plainCivil, plainSocial] = await Promise.all([
      startDemoRelay({ edit: civilAllowsIn }),
      startDemoRelay({ edit: socialAllowsIn }),
      startDemoRelay(),
      startDemoRelay(),
    ]);
    const [civilUrl, socialUrl, plainCivilUrl, plainSocialUrl] = await Promise.all(
      [civil, social, plainCivil, plainSocial].map(listen),
    );
    bulk = await startTestVerifier({ relays: { civil: civilUrl, social: socialUrl }, bulk: true });
    plain = await startTestVerifier({ relays: { civil: plainCivilUrl, social: plainSocialUrl } });
    // Bulk reads configured, but against relays that refuse `.in` on the lookup fields.
    refused = await startTestVerifier({
      relays: { civil: plainCivilUrl, social: plainSocialUrl },
      bulk: true,
    });
    // Single evaluations arriving together share their upstream reads.
    coalescing = await startTestVerifier({
      relays: { civil: civilUrl, social: socialUrl },
      bulk: true,
      edit: (text) =>
        text.replaceAll(
          'bulk_mode: rda_in_filter\n',
          'bulk_mode: rda_in_filter\n      coalesce_reads: true\n',
        ),
    });
    const data = await readDemoData();
    const headsOf = new Map<string, number>();
    for (const household of data.households) {
      const id = String(household.head_of_household_person_id);
      headsOf.set(id, (headsOf.get(id) ?? 0) + 1);
    }
    heads = data.persons.filter((row) => row.deceased === false && headsOf.get(String(row.person_id)) === 1);
    deceased = data.persons.find((row) => row.deceased === true) as Row;
    assert.ok(heads.length >= 100, 'the demo data has 100 living heads of one household each');
  });

  after(async () => {
    await Promise.all([bulk, plain, refused, coalescing].map((verifier) => verifier?.close()));
    await Promise.all([civil, social, plainCivil, plainSocial].map((relay) => relay?.close()));
  });

  it('evaluates 100 subjects with one upstream request per source binding when .in applies', async () => {
    const civilBefore = rowReads(civil).length;
    const socialBefore = rowReads(social).length;
    const subjects = heads.slice(0, 100);
    const response = await bulk.post(
      BATCH,
      { items: subjects.map((row) => ({ target: person(row) })), claims: ['eligible'] },
      { headers: { 'x-request-id': 'corr-batch-100' } },
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/json');
    const body = JSON.parse(response.body);
    assert.match(body.batch_id, ULID_PATTERN);
    assert.equal(body.status, 'completed');
    assert.deepEqual(body.claims, ['eligible']);
    assert.deepEqual(body.summary, { succeeded: 100, failed: 0 });
    const items = body.items as Item[];
    assert.deepEqual(
      items.map((item) => item.input_index),
      subjects.map((_, index) => index),
    );
    const data = await readDemoData();
    for (const [index, item] of items.entries()) {
      const row = subjects[index] as Row;
      const household = data.households.find((entry) => entry.head_of_household_person_id === row.person_id);
      assert.equal(item.status, 'succeeded');
      assert.match(item.evaluation_id ?? '', ULID_PATTERN);
      assert.deepEqual(item.errors, []);
      const [result] = item.claim_results;
      assert.equal(result?.claim_id, 'eligible');
      assert.equal(result?.value_type, 'boolean');
      assert.equal(result?.disclosure, 'predicate');
      assert.equal(result?.satisfied, household?.enrollment_status === 'enrolled');
      assert.equal(result?.result_id, `${item.evaluation_id}:eligible`);
      const provenance = result?.provenance as { used: { source_count: number } } | undefined;
      assert.equal(provenance?.used.source_count, 2);
    }
    assert.equal(new Set(items.map((item) => item.evaluation_id)).size, 100);

    const civilReads = rowReads(civil).slice(civilBefore);
    const socialReads = rowReads(social).slice(socialBefore);
    assert.equal(civilReads.length, 1, 'one civil registry request for 100 subjects');
    assert.equal(socialReads.length, 1, 'one social protection request for 100 subjects');
    assert.ok(Object.hasOwn(civilReads[0]?.query_params as object, 'national_id.in'));
    assert.ok(Object.hasOwn(socialReads[0]?.query_params as object, 'head_of_household_person_id.in'));
    assert.equal(civilReads[0]?.row_count, 100);
    for (const read of [...civilReads, ...socialReads]) {
      assert.equal(read.purpose, EVIDENCE_PURPOSE);
      assert.equal(read.client_request_id, 'corr-batch-100');
    }
    assert.ok(!response.body.includes(String(subjects[0]?.national_id)), 'no identifier in the response');
  });

  it('fails only the items that fail: unknown subjects, missing identifiers, malformed targets', async () => {
    const civilBefore = rowReads(civil).length;
    const [first, second] = heads as [Row, Row];
    const response = await bulk.post(BATCH, {
      items: [
        { target: person(first) },
        { target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000000' }] } },
        { target: { type: 'person', identifiers: [{ scheme: 'person_id', value: 'per-1' }] } },
        {
          target: {
            type: 'person',
            identifiers: [
              { scheme: 'national_id', value: 'A' },
              { scheme: 'national_id', value: 'B' },
            ],
          },
        },
        { target: { type: 'person' } },
        { target: person(deceased) },
        { target: person(second) },
      ],
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body);
    const items = body.items as Item[];
    assert.deepEqual(
      items.map((item) => item.status),
      ['succeeded', 'failed', 'failed', 'failed', 'failed', 'succeeded', 'succeeded'],
    );
    assert.deepEqual(
      items.map((item) => item.errors[0]?.code ?? null),
      [
        null,
        'evidence.not_available',
        'target.identifier_missing',
        'request.invalid',
        'target.attributes_insufficient',
        null,
        null,
      ],
    );
    assert.ok(items.every((item) => item.errors.every((error) => error.retryable === false)));
    // An item's failure that is one claim's names it; a target the request cannot use names none.
    assert.deepEqual(
      items.map((item) => item.errors[0]?.claim_id ?? null),
      [null, 'person_alive', 'person_alive', null, null, null, null],
    );
    assert.equal(items[1]?.evaluation_id, undefined);
    assert.match(items[1]?.target_ref?.handle ?? '', /^amref:v1:/);
    assert.equal(items[4]?.target_ref, null);
    assert.equal(items[5]?.claim_results[0]?.satisfied, false);
    assert.deepEqual(body.summary, { succeeded: 3, failed: 4 });
    assert.equal(rowReads(civil).length - civilBefore, 1, 'the unknown subject rode in the same request');
  });

  it('reads a subject named by several items once, even without .in', async () => {
    const before = rowReads(plainCivil).length;
    const [first, second] = heads as [Row, Row];
    const response = await plain.post(BATCH, {
      items: [first, first, second, first].map((row) => ({ target: person(row) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body);
    assert.deepEqual(body.summary, { succeeded: 4, failed: 0 });
    const reads = rowReads(plainCivil).slice(before);
    assert.equal(reads.length, 2, 'one read per distinct subject');
    assert.ok(reads.every((read) => Object.hasOwn(read.query_params as object, 'national_id')));
  });

  it('falls back to single reads when the relay refuses the .in form, with the same results', async () => {
    const before = rowReads(plainCivil).length;
    const subjects = heads.slice(0, 5);
    const response = await refused.post(BATCH, {
      items: subjects.map((row) => ({ target: person(row) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body);
    assert.deepEqual(body.summary, { succeeded: 5, failed: 0 });
    assert.ok((body.items as Item[]).every((item) => item.claim_results[0]?.satisfied === true));
    const reads = rowReads(plainCivil).slice(before);
    assert.equal(reads.length, 6, 'one refused .in request, then one read per subject');
    assert.equal(reads[0]?.status_code, 400);
    assert.equal(reads[0]?.error_code, 'filter.not_allowed');
    const record = refused.auditRecords().find((entry) => entry.endpoint_kind === 'batch_evaluate');
    assert.equal(record?.upstream_request_count, 6);
  });

  it('stores each item evaluation for its caller, ready to render in the batch format', async () => {
    const [first] = heads as [Row];
    const response = await bulk.post(BATCH, {
      items: [{ target: person(first) }],
      claims: ['eligible'],
      format: CCCEV,
    });
    assert.equal(response.statusCode, 200, response.body);
    const [item] = JSON.parse(response.body).items as Item[];
    const render = await bulk.post(`/v1/evaluations/${item?.evaluation_id}/render`, { format: CCCEV });
    assert.equal(render.statusCode, 200, render.body);
    assert.equal(render.headers['content-type'], CCCEV);
    const [node] = JSON.parse(render.body)['@graph'];
    assert.equal(node['dcterms:identifier'], item?.evaluation_id);
    assert.equal(node['@type'], 'cccev:Evidence');
    const other = await bulk.post(
      `/v1/evaluations/${item?.evaluation_id}/render`,
      { format: CCCEV },
      {
        as: 'civil_only',
      },
    );
    assertProblem(other, 404, 'evaluation.not_found');
  });

  it('writes one audit event per item and one for the batch, chained, without identifiers', async () => {
    const [first] = heads as [Row];
    const response = await bulk.post(BATCH, {
      items: [
        { target: person(first) },
        { target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000000' }] } },
      ],
      claims: ['person_alive'],
    });
    const body = JSON.parse(response.body);
    const records = bulk.auditRecords().filter((record) => record.batch_id === body.batch_id);
    const batch = records.find((record) => record.endpoint_kind === 'batch_evaluate');
    const itemEvents = records.filter((record) => record.endpoint_kind === 'batch_item');
    assert.equal(batch?.decision, 'batch_evaluate');
    assert.equal(batch?.status, 200);
    assert.equal(batch?.batch_size, 2);
    assert.equal(batch?.batch_succeeded, 1);
    assert.equal(batch?.batch_failed, 1);
    assert.equal(batch?.upstream_request_count, 1);
    assert.equal(batch?.idempotency, 'none');
    assert.deepEqual(
      itemEvents.map((record) => [record.input_index, record.decision, record.status, record.error_code]),
      [
        [0, 'evaluate', 200, null],
        [1, 'evaluate_denied', 409, 'target.not_found'],
      ],
    );
    assert.equal(itemEvents[0]?.verification_id, body.items[0].evaluation_id);
    assert.equal(itemEvents[0]?.path, BATCH);
    assert.deepEqual(itemEvents[0]?.purposes, [EVIDENCE_PURPOSE]);
    assert.match(String(itemEvents[1]?.target_ref_hash), /^hmac-sha256:[0-9a-f]{64}$/);
    assert.equal(itemEvents[1]?.problem_code, 'evidence.not_available');
    const lines = readFileSync(bulk.auditPath, 'utf8').trim().split('\n');
    assert.ok(verifyAuditChain(lines, Buffer.from(VERIFIER_AUDIT_SECRET), null).ok);
    const text = lines.join('\n');
    for (const secret of [String(first.national_id), String(first.person_id), 'FAKE-000000']) {
      assert.ok(!text.includes(secret), `audit contains ${secret}`);
    }
  });

  it('gives subjects looked up by an attribute each their own handle and audit hash', async () => {
    const relayUrl = `http://127.0.0.1:${(plainCivil.app.server.address() as AddressInfo).port}`;
    const byRef = await startTestVerifier({
      relays: { civil: relayUrl },
      edit: (text) =>
        `${text}${aliveByAttributeClaim({
          id: 'alive_by_ref',
          title: 'Person is alive, found by a case reference',
          attribute: 'person_ref',
          field: 'person_id',
        })}`,
    });
    try {
      const [alive] = heads as [Row];
      const target = (row: Row, extra = {}) => ({
        type: 'person',
        attributes: { person_ref: String(row.person_id), ...extra },
      });
      const response = await byRef.post(BATCH, {
        items: [
          { target: target(alive) },
          { target: target(deceased) },
          { target: target(alive, { note: 'not a lookup input' }) },
        ],
        claims: ['alive_by_ref'],
      });
      assert.equal(response.statusCode, 200, response.body);
      const body = JSON.parse(response.body) as { batch_id: string; items: Item[] };
      assert.deepEqual(
        body.items.map((item) => item.claim_results[0]?.satisfied),
        [true, false, true],
      );
      const [first, second, again] = body.items.map((item) => item.target_ref?.handle);
      assert.notEqual(first, second);
      assert.equal(again, first, 'the same subject keeps its handle');
      const hashes = byRef
        .auditRecords()
        .filter((record) => record.batch_id === body.batch_id && record.endpoint_kind === 'batch_item')
        .sort((a, b) => Number(a.input_index) - Number(b.input_index))
        .map((record) => String(record.target_ref_hash));
      assert.equal(new Set(hashes).size, 2);
      assert.equal(hashes[2], hashes[0]);
      for (const hash of hashes) assert.match(hash, /^hmac-sha256:[0-9a-f]{64}$/);
      const text = readFileSync(byRef.auditPath, 'utf8');
      for (const row of [alive, deceased]) assert.ok(!text.includes(String(row.person_id)));
    } finally {
      await byRef.close();
    }
  });

  describe('idempotency key', () => {
    const body = () => ({ items: [{ target: person(heads[0] as Row) }], claims: ['person_alive'] });

    it('replays the stored response for the same request by the same caller, reading nothing again', async () => {
      const first = await bulk.post(BATCH, body(), { headers: { 'idempotency-key': 'key-replay-1' } });
      assert.equal(first.statusCode, 200, first.body);
      const reads = rowReads(civil).length;
      const again = await bulk.post(BATCH, body(), { headers: { 'idempotency-key': 'key-replay-1' } });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(first.headers['idempotent-replayed'], undefined);
      assert.equal(rowReads(civil).length, reads, 'a replay reads nothing');
      const replayed = bulk
        .auditRecords()
        .filter((record) => record.endpoint_kind === 'batch_evaluate' && record.idempotency === 'replayed');
      assert.equal(replayed.at(-1)?.batch_id, JSON.parse(first.body).batch_id);
    });

    it('answers 409 idempotency.conflict for the same key with another body or purpose', async () => {
      await bulk.post(BATCH, body(), { headers: { 'idempotency-key': 'key-conflict-1' } });
      const reads = rowReads(civil).length;
      const other = await bulk.post(
        BATCH,
        { ...body(), disclosure: 'value' },
        { headers: { 'idempotency-key': 'key-conflict-1' } },
      );
      assertProblem(other, 409, 'idempotency.conflict');
      const otherPurpose = await bulk.post(BATCH, body(), {
        headers: {
          'idempotency-key': 'key-conflict-1',
          'data-purpose': 'https://demo.example.gov/purpose/audit',
        },
      });
      assertProblem(otherPurpose, 409, 'idempotency.conflict');
      assert.equal(rowReads(civil).length, reads);
      const refused = bulk
        .auditRecords()
        .filter((record) => record.endpoint_kind === 'batch_evaluate')
        .slice(-2)
        .map((record) => [record.error_code, record.idempotency]);
      assert.deepEqual(refused, [
        ['idempotency.conflict', 'conflict'],
        ['idempotency.conflict', 'conflict'],
      ]);
    });

    it('scopes keys to the caller: another caller with the same key runs its own batch', async () => {
      const mine = await bulk.post(BATCH, body(), { headers: { 'idempotency-key': 'key-shared-1' } });
      const theirs = await bulk.post(BATCH, body(), {
        as: 'civil_only',
        headers: { 'idempotency-key': 'key-shared-1' },
      });
      assert.equal(theirs.statusCode, 200, theirs.body);
      assert.notEqual(JSON.parse(theirs.body).batch_id, JSON.parse(mine.body).batch_id);
      assert.equal(theirs.headers['idempotent-replayed'], undefined);
    });

    it('does not keep a key for a rejected batch, and refuses malformed keys', async () => {
      const rejected = await bulk.post(
        BATCH,
        { ...body(), claims: ['birth_date'] },
        { headers: { 'idempotency-key': 'key-rejected-1' } },
      );
      assertProblem(rejected, 501, 'claim.operation_unsupported');
      const accepted = await bulk.post(BATCH, body(), { headers: { 'idempotency-key': 'key-rejected-1' } });
      assert.equal(accepted.statusCode, 200, accepted.body);
      for (const key of ['has space', 'x'.repeat(256), 'tab\there']) {
        assertProblem(
          await bulk.post(BATCH, body(), { headers: { 'idempotency-key': key } }),
          400,
          'request.invalid',
        );
      }
    });
  });

  it('uses each item purpose, and checks every purpose before any read', async () => {
    const audit = 'https://demo.example.gov/purpose/audit';
    const [first, second] = heads as [Row, Row];
    const response = await bulk.post(
      BATCH,
      {
        items: [
          { target: person(first), purpose: EVIDENCE_PURPOSE },
          { target: person(second), purpose: audit },
        ],
        claims: ['person_alive'],
      },
      { headers: { 'data-purpose': '' } },
    );
    assert.equal(response.statusCode, 200, response.body);
    const reads = rowReads(civil).slice(-2);
    assert.deepEqual(reads.map((read) => read.purpose).sort(), [audit, EVIDENCE_PURPOSE].sort());
    const batch = bulk.auditRecords().findLast((record) => record.endpoint_kind === 'batch_evaluate');
    assert.deepEqual([...((batch?.purposes ?? []) as string[])].sort(), [audit, EVIDENCE_PURPOSE].sort());

    const before = rowReads(civil).length;
    // audit_only is evaluated for the audit purpose only.
    assertProblem(
      await bulk.post(BATCH, {
        items: [{ target: person(first), purpose: audit }, { target: person(second) }],
        claims: ['audit_only'],
        purpose: EVIDENCE_PURPOSE,
      }),
      400,
      'request.invalid',
    );
    assertProblem(
      await bulk.post(
        BATCH,
        {
          items: [{ target: person(first), purpose: audit }, { target: person(second) }],
          claims: ['audit_only'],
        },
        { headers: { 'data-purpose': '' } },
      ),
      400,
      'auth.purpose_required',
    );
    assertProblem(
      await bulk.post(BATCH, { items: [{ target: person(first) }], claims: ['audit_only'] }),
      403,
      'purpose.not_allowed',
    );
    assertProblem(
      await bulk.post(
        BATCH,
        {
          items: [{ target: person(first), purpose: 'https://elsewhere.example/p' }],
          claims: ['person_alive'],
        },
        { headers: { 'data-purpose': '' } },
      ),
      403,
      'purpose.not_allowed',
    );
    assertProblem(
      await bulk.post(
        BATCH,
        { items: [{ target: person(first) }], claims: ['person_alive'], purpose: audit },
        { headers: { 'data-purpose': EVIDENCE_PURPOSE } },
      ),
      400,
      'request.invalid',
    );
    assert.equal(rowReads(civil).length, before, 'no rejected batch read anything');
  });

  it('negotiates: JSON envelope, body format bound to each item, 406 otherwise', async () => {
    const items = [{ target: person(heads[0] as Row) }];
    const plainResponse = await bulk.post(BATCH, { items, claims: ['person_alive'] });
    assert.equal(JSON.parse(plainResponse.body).format, CLAIM_RESULT);
    for (const [request, headers] of [
      [{ items, claims: ['person_alive'] }, { accept: 'text/html' }],
      [{ items, claims: ['person_alive'], format: 'application/dc+sd-jwt' }, {}],
      [{ items, claims: ['person_alive'], format: 'text/csv' }, {}],
    ] as const) {
      assertProblem(await bulk.post(BATCH, request, { headers }), 406, 'claim.format_not_supported');
    }
    const ok = await bulk.post(
      BATCH,
      { items, claims: ['person_alive'] },
      { headers: { accept: 'application/json' } },
    );
    assert.equal(ok.statusCode, 200, ok.body);
  });

  it('rejects a batch before any read: auth, scopes, claims, operation, size, body, disclosure', async () => {
    const before = rowReads(civil).length + rowReads(social).length;
    const items = [{ target: person(heads[0] as Row) }];
    const oversize = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ target: person(heads[index % 50] as Row) }));
    const cases: [
      unknown,
      number,
      string,
      { as?: 'civil_only' | 'no_scopes'; headers?: Record<string, string> }?,
    ][] = [
      [{ items, claims: ['person_alive'] }, 401, 'auth.missing_credential', { headers: { 'x-api-key': '' } }],
      [{ items, claims: ['eligible'] }, 403, 'auth.scope_denied', { as: 'civil_only' }],
      [{ items, claims: ['person_alive'] }, 403, 'auth.scope_denied', { as: 'no_scopes' }],
      [{ items, claims: ['nope'] }, 404, 'claim.not_found'],
      [{ items, claims: ['birth_date'] }, 501, 'claim.operation_unsupported'],
      [{ items, claims: ['plugin_check'] }, 501, 'claim.operation_unsupported'],
      [{ items: oversize(101), claims: ['person_alive'] }, 413, 'batch.too_large'],
      [{ items: oversize(1001), claims: ['person_alive'] }, 413, 'batch.too_large'],
      [{ items: oversize(4), claims: ['person_registered'] }, 413, 'batch.too_large'],
      [[], 400, 'request.invalid'],
      [{ claims: ['person_alive'] }, 400, 'request.invalid'],
      [{ items: [], claims: ['person_alive'] }, 400, 'request.invalid'],
      [{ items: 'all', claims: ['person_alive'] }, 400, 'request.invalid'],
      [{ items, claims: [] }, 400, 'request.invalid'],
      [{ items, claims: ['person_alive'], extra: 1 }, 400, 'request.invalid'],
      [
        { items: [...items, { target: { type: 'person', id: 'x' }, note: 1 }], claims: ['person_alive'] },
        400,
        'request.invalid',
      ],
      [{ items: [...items, 'p-1'], claims: ['person_alive'] }, 400, 'request.invalid'],
      [{ items: [{ target: { identifiers: [] } }], claims: ['person_alive'] }, 400, 'request.invalid'],
      [{ items, claims: ['person_alive'], disclosure: 'everything' }, 400, 'request.invalid'],
      [{ items, claims: ['eligible'], disclosure: 'value' }, 403, 'claim.disclosure_not_allowed'],
    ];
    for (const [request, status, code, options] of cases) {
      const response = await bulk.post(BATCH, request, options);
      assertProblem(response, status, code);
    }
    const malformed = JSON.parse(
      (
        await bulk.post(BATCH, {
          items: [...items, { target: { type: 'person', id: 'x' }, note: 1 }],
          claims: ['person_alive'],
        })
      ).body,
    );
    assert.ok(malformed.errors.some((error: { path: string }) => error.path === 'items.1'));
    const tooLarge = JSON.parse(
      (await bulk.post(BATCH, { items: oversize(4), claims: ['person_registered'] })).body,
    );
    assert.equal(tooLarge.max_items, 3);
    assert.equal(rowReads(civil).length + rowReads(social).length, before, 'nothing was read');
    const denied = bulk.auditRecords().findLast((record) => record.endpoint_kind === 'batch_evaluate');
    assert.equal(denied?.decision, 'batch_evaluate_denied');
  });

  it('reports an unavailable source per item as retryable, and still answers 200', async () => {
    const response = await bulk.post(BATCH, {
      items: [{ target: person(heads[0] as Row) }, { target: person(heads[1] as Row) }],
      claims: ['ledger_entry'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body);
    assert.deepEqual(body.summary, { succeeded: 0, failed: 2 });
    for (const item of body.items as Item[]) {
      assert.deepEqual(item.errors, [
        {
          code: 'source.unavailable',
          title: 'Source unavailable',
          retryable: true,
          claim_id: 'ledger_entry',
        },
      ]);
    }
  });

  it('reads the subjects of single evaluations arriving together with shared `.in` requests', async () => {
    const civilBefore = rowReads(civil).length;
    const subjects = heads.slice(10, 30);
    const data = await readDemoData();
    const responses = await Promise.all(
      subjects.map((row, index) =>
        coalescing.evaluate(
          { target: person(row), claims: ['eligible'] },
          { headers: { 'x-request-id': `corr-single-${index}` } },
        ),
      ),
    );
    for (const [index, response] of responses.entries()) {
      assert.equal(response.statusCode, 200, response.body);
      const row = subjects[index] as Row;
      const household = data.households.find((entry) => entry.head_of_household_person_id === row.person_id);
      const [result] = JSON.parse(response.body).results as { satisfied: boolean }[];
      assert.equal(result?.satisfied, household?.enrollment_status === 'enrolled', `subject ${index}`);
    }
    const civilReads = rowReads(civil).slice(civilBefore);
    assert.ok(
      civilReads.length < subjects.length / 2,
      `${civilReads.length} civil reads for ${subjects.length}`,
    );
    assert.ok(civilReads.some((read) => Object.hasOwn(read.query_params as object, 'national_id.in')));
    // Every evaluation keeps its own audit event, whoever's request id went upstream.
    const events = coalescing.auditRecords().filter((event) => String(event.request_id ?? '').length > 0);
    for (let index = 0; index < subjects.length; index++) {
      assert.ok(
        events.some((event) => JSON.stringify(event).includes(`corr-single-${index}`)),
        `no audit event for corr-single-${index}`,
      );
    }
  });
});
