// The relay audit trail end to end: one keyed-hash-chained record per request, redaction, health gate, fail-closed.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { verifyAuditFile } from '../../src/platform/audit/audit-cli.ts';
import { keyedHash } from '../../src/platform/audit/keyed-hash.ts';
import { assertProblem, assertRequestId } from '../helpers/http-checks.ts';
import {
  AUDIT_SECRET,
  DEMO_DIR,
  PURPOSE,
  startDemoRelay,
  TEST_KEYS,
  type TestRelay,
} from '../helpers/relay-harness.ts';

const SECRET = Buffer.from(AUDIT_SECRET, 'utf8');
const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';

/** The record field set, in order, that src/relay/audit/build-relay-audit-record.ts writes. */
const RECORD_KEYS = [
  'ts',
  'request_id',
  'client_request_id',
  'principal_id',
  'auth_mode',
  'remote_addr',
  'method',
  'path',
  'endpoint_kind',
  'dataset_id',
  'entity_name',
  'table_id_hash',
  'relationship',
  'aggregate_id',
  'primary_key',
  'scopes_used',
  'query_params',
  'purpose',
  'status_code',
  'row_count',
  'suppressed_groups',
  'duration_ms',
  'error_code',
];

/** The national_id and given_name of the first person in the demo civil registry. */
function firstPerson(): { nationalId: string; givenName: string } {
  const line = readFileSync(join(DEMO_DIR, 'data/civil_registry.csv'), 'utf8').split('\n')[1] ?? '';
  const [, nationalId = '', givenName = ''] = line.split(',');
  assert.match(nationalId, /^FAKE-\d+$/, `unexpected demo row ${line}`);
  assert.ok(givenName.length > 2, `unexpected demo row ${line}`);
  return { nationalId, givenName };
}

const setAuditOption = (option: string) => (text: string) =>
  text.replace(/\naudit:\n/, `\naudit:\n  ${option}\n`);
const auditToDevFull = (text: string) => text.replace(/path: \S*audit\.jsonl/, 'path: /dev/full');

function recordOf(relay: TestRelay, response: Response): Record<string, unknown> {
  const id = assertRequestId(response);
  const matches = relay.auditRecords().filter((record) => record.request_id === id);
  assert.equal(matches.length, 1, `records for ${id}`);
  return matches[0] as Record<string, unknown>;
}

describe('relay audit records', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('writes one record per request with exactly the relay field set', async () => {
    const before = relay.auditRecords().length;
    const responses = [
      await relay.get(`${HOUSEHOLDS}?limit=2`, { as: 'caseworker' }),
      await relay.get(HOUSEHOLDS),
      await relay.get(HOUSEHOLDS, { as: 'health_planner' }),
      await relay.get('/v1/datasets', { as: 'analyst' }),
      await relay.get('/nowhere'),
    ];
    const records = relay.auditRecords();
    assert.equal(records.length, before + responses.length);
    for (const [index, response] of responses.entries()) {
      const record = records[before + index] as Record<string, unknown>;
      assert.deepEqual(Object.keys(record), RECORD_KEYS);
      assert.equal(record.request_id, response.headers['x-request-id']);
      assert.equal(record.status_code, response.statusCode);
      assert.match(String(record.ts), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(typeof record.duration_ms, 'number');
    }
    const rows = records[before] as Record<string, unknown>;
    assert.equal(rows.principal_id, 'caseworker');
    assert.equal(rows.auth_mode, 'api_key');
    assert.equal(rows.endpoint_kind, 'rows');
    assert.equal(rows.dataset_id, 'social_protection');
    assert.equal(rows.entity_name, 'households');
    assert.equal(rows.table_id_hash, keyedHash(SECRET, 'table', 'social_protection/sp_households'));
    assert.deepEqual(rows.scopes_used, ['social_protection:rows']);
    assert.deepEqual(rows.query_params, { limit: { op: 'param' } });
    assert.equal(rows.row_count, 2);
    assert.equal(rows.error_code, null);
  });

  it('lists each scope a request relied on once (a relationship within one dataset uses its rows scope twice)', async () => {
    const response = await relay.get(`${HOUSEHOLDS}/hh-1001/relationships/members?limit=2`, {
      as: 'caseworker',
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(recordOf(relay, response).scopes_used, ['social_protection:rows']);
  });

  it('chains the records with the audit secret, and the chain detects an edit', () => {
    const lines = readFileSync(relay.auditPath, 'utf8').trimEnd().split('\n');
    const verified = verifyAuditFile(relay.auditPath, SECRET, { startPrevHash: null });
    assert.deepEqual(verified.ok && verified.count, lines.length);
    assert.equal(
      verifyAuditFile(relay.auditPath, Buffer.from('another-secret-of-at-least-32-bytes!!')).ok,
      false,
    );

    const dir = mkdtempSync(join(tmpdir(), 'ambit-audit-edit-'));
    try {
      const copy = join(dir, 'audit.jsonl');
      copyFileSync(relay.auditPath, copy);
      const edited = lines.map((line, index) =>
        index === 1 ? line.replace('"status_code":401', '"status_code":200') : line,
      );
      assert.notEqual(edited[1], lines[1]);
      writeFileSync(copy, `${edited.join('\n')}\n`);
      const result = verifyAuditFile(copy, SECRET);
      assert.equal(result.ok, false);
      assert.equal(!result.ok && result.line, 2);
      writeFileSync(copy, `${lines.filter((_line, index) => index !== 1).join('\n')}\n`);
      assert.equal(verifyAuditFile(copy, SECRET).ok, false, 'a removed line breaks the chain');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records Data-Purpose verbatim, and null when absent', async () => {
    const purpose = 'https://demo.example.gov/purpose/Benefit Eligibility?case=A-17 & review';
    const withPurpose = await relay.get(`${HOUSEHOLDS}?limit=1`, {
      as: 'caseworker',
      headers: { 'data-purpose': purpose },
    });
    assert.equal(withPurpose.statusCode, 200);
    assert.equal(recordOf(relay, withPurpose).purpose, purpose);
    const without = await relay.get(`${HOUSEHOLDS}?limit=1`, { as: 'caseworker' });
    assert.equal(recordOf(relay, without).purpose, null);
  });

  it('keeps a sensitive filter value only as a keyed hash, and other values not at all', async () => {
    const { nationalId, givenName } = firstPerson();
    const response = await relay.get(`${PERSONS}?national_id=${nationalId}`, {
      as: 'caseworker',
      headers: { 'data-purpose': PURPOSE },
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().data.length, 1);
    const record = recordOf(relay, response);
    assert.deepEqual(record.query_params, {
      national_id: {
        op: 'eq',
        value_hash: keyedHash(SECRET, 'query:civil_registry:persons:national_id', nationalId),
      },
    });
    const district = await relay.get(`${HOUSEHOLDS}?district.in=willowbank,lakeside`, { as: 'caseworker' });
    assert.deepEqual(recordOf(relay, district).query_params, { 'district.in': { op: 'in' } });

    const text = readFileSync(relay.auditPath, 'utf8');
    for (const raw of [nationalId, givenName, 'willowbank', 'lakeside']) {
      assert.ok(!text.includes(raw), `audit file holds ${raw}`);
    }
  });

  it('templates record ids in the path and keeps them only as a primary_key hash', async () => {
    const id = 'hh-1001';
    const expected = keyedHash(SECRET, 'primary_key:social_protection:households', id);
    const read = await relay.get(`${HOUSEHOLDS}/${id}`, { as: 'caseworker' });
    assert.equal(read.statusCode, 200);
    const record = recordOf(relay, read);
    assert.equal(record.path, `${HOUSEHOLDS}/{id}`);
    assert.equal(record.primary_key, expected);
    assert.equal(record.row_count, 1);
    const members = await relay.get(`${HOUSEHOLDS}/${id}/relationships/members`, { as: 'caseworker' });
    assert.equal(members.statusCode, 200);
    const related = recordOf(relay, members);
    assert.equal(related.path, `${HOUSEHOLDS}/{id}/relationships/members`);
    assert.equal(related.relationship, 'members');
    assert.equal(related.primary_key, expected);
    const missing = await relay.get(`${HOUSEHOLDS}/hh-0000`, { as: 'caseworker' });
    const missingRecord = recordOf(relay, missing);
    assert.equal(missingRecord.error_code, 'schema.unknown_resource');
    assert.equal(
      missingRecord.primary_key,
      keyedHash(SECRET, 'primary_key:social_protection:households', 'hh-0000'),
    );
    const text = readFileSync(relay.auditPath, 'utf8');
    assert.ok(!text.includes(id) && !text.includes('hh-0000'), 'audit file holds a raw record id');
  });

  it('never writes a raw identifier the client put in a path no route matched, or in a parameter name', async () => {
    const { nationalId } = firstPerson();
    const headers = { 'data-purpose': PURPOSE };
    const probes = [
      await relay.inject({ method: 'DELETE', url: `${PERSONS}/${nationalId}` }),
      await relay.get(`${PERSONS}/${nationalId}/`, { as: 'caseworker', headers }),
      await relay.get(`${PERSONS}/${nationalId}%ZZ`, { as: 'caseworker', headers }),
      // A double-encoded query: the whole `national_id=<value>` arrives as one parameter name.
      await relay.get(`${PERSONS}?national_id%3D${nationalId}`, { as: 'caseworker', headers }),
      await relay.get(`${PERSONS}?national_id.${nationalId}=1`, { as: 'caseworker', headers }),
    ];
    // A route that matched, with a dataset the relay does not serve (and no credential): its name is not written.
    probes.push(await relay.get(`/v1/datasets/${nationalId}/entities/x/records`));
    // An aggregate id the dataset does not declare, asked by a caller who may see the dataset: not written either.
    probes.push(
      await relay.get(`/v1/datasets/social_protection/aggregates/${nationalId}`, { as: 'analyst' }),
    );
    for (const response of probes) assert.ok(response.statusCode >= 400, response.body);
    const records = probes.map((response) => recordOf(relay, response));
    for (const record of records.slice(0, 3)) assert.equal(record.path, '(no route)');
    assert.equal(records[5]?.path, '/v1/datasets/{dataset_id}/entities/{entity}/records');
    assert.equal(records[6]?.error_code, 'schema.unknown_aggregate');
    assert.equal(records[6]?.path, '/v1/datasets/{dataset_id}/aggregates/{aggregate_id}');
    assert.deepEqual(Object.values(records[3]?.query_params as object), [
      { op: 'unknown', value_hash: keyedHash(SECRET, 'query:civil_registry:persons:#unknown', '') },
    ]);
    const text = readFileSync(relay.auditPath, 'utf8');
    assert.ok(!text.includes(nationalId), 'audit file holds the raw national id');
  });

  it('keeps the record of a URL of thousands of unknown parameter names small', async () => {
    const names = Array.from({ length: 2000 }, (_, i) => i.toString(36)).join('&');
    const response = await relay.get(`${PERSONS}?${names}`, { as: 'caseworker' });
    assert.equal(response.statusCode, 400, response.body);
    const record = recordOf(relay, response);
    const size = JSON.stringify(record).length;
    assert.ok(size < 16 * 1024, `a ${names.length}-character query made a ${size}-character record`);
    assert.ok(Object.keys(record.query_params as object).length > 1);
  });

  it('writes a relationship name only when the entity declares it, never the text of an unknown one', async () => {
    const { nationalId } = firstPerson();
    const probe = await relay.get(`${HOUSEHOLDS}/hh-1001/relationships/${nationalId}`, { as: 'caseworker' });
    assert.equal(probe.statusCode, 404, probe.body);
    const record = recordOf(relay, probe);
    assert.equal(record.relationship, null);
    assert.equal(record.path, `${HOUSEHOLDS}/{id}/relationships/{relationship}`);
    const text = readFileSync(relay.auditPath, 'utf8');
    assert.ok(!text.includes(nationalId), 'audit file holds the raw national id');
  });

  it('never writes API keys or bearer tokens, presented in any header or parameter', async () => {
    const bogus = 'not-a-real-key-7c1f0e9b2a';
    const responses = [
      await relay.get('/v1/datasets', { headers: { authorization: `Bearer ${bogus}` } }),
      await relay.get('/v1/datasets', { headers: { 'x-api-key': `${bogus}-x` } }),
      await relay.get('/v1/datasets', { headers: { 'x-api-key': TEST_KEYS.operator } }),
      await relay.get(`${HOUSEHOLDS}?api_key=${bogus}-q&access_token=${bogus}-t`, { as: 'caseworker' }),
    ];
    assert.equal(responses[0]?.statusCode, 401);
    const redacted = recordOf(relay, responses[3] as Response);
    // Not names of the entity: written as keyed hashes of themselves.
    assert.deepEqual(redacted.query_params, {
      [keyedHash(SECRET, 'query:social_protection:households:#name', 'api_key')]: { op: 'redacted' },
      [keyedHash(SECRET, 'query:social_protection:households:#name', 'access_token')]: { op: 'redacted' },
    });
    const text = readFileSync(relay.auditPath, 'utf8');
    for (const secret of [bogus, ...Object.values(TEST_KEYS)]) {
      assert.ok(!text.includes(secret), 'audit file holds a credential');
    }
    assert.ok(!/bearer/i.test(text));
  });

  it('does not audit /healthz and /ready by default', async () => {
    const before = relay.auditRecords().length;
    assert.equal((await relay.get('/healthz')).statusCode, 200);
    assert.equal((await relay.get('/ready')).statusCode, 200);
    assert.equal(relay.auditRecords().length, before);
  });

  it('writes a record for every retry of the same request', async () => {
    const first = await relay.get(`${HOUSEHOLDS}?district=highmoor&limit=3`, { as: 'caseworker' });
    const second = await relay.get(`${HOUSEHOLDS}?district=highmoor&limit=3`, { as: 'caseworker' });
    assert.equal(first.body, second.body);
    const a = recordOf(relay, first);
    const b = recordOf(relay, second);
    assert.notEqual(a.request_id, b.request_id);
    assert.deepEqual(
      { ...a, ts: 0, request_id: 0, duration_ms: 0 },
      { ...b, ts: 0, request_id: 0, duration_ms: 0 },
    );
  });

  it('carries the stable error code on error records and null on success and 304', async () => {
    const cases: [Response, string | null][] = [
      [await relay.get(HOUSEHOLDS), 'auth.missing_credential'],
      [await relay.get(HOUSEHOLDS, { headers: { authorization: 'Basic abc' } }), 'auth.malformed_credential'],
      [await relay.get(HOUSEHOLDS, { as: 'catalog_viewer' }), 'auth.scope_denied'],
      [await relay.get(PERSONS, { as: 'caseworker' }), 'auth.purpose_required'],
      [await relay.get(`${HOUSEHOLDS}?limit=0`, { as: 'caseworker' }), 'filter.limit_out_of_range'],
      [await relay.get('/nowhere'), 'http.not_found'],
      [await relay.get(`${HOUSEHOLDS}?limit=1`, { as: 'caseworker' }), null],
    ];
    const etag = String(cases.at(-1)?.[0].headers.etag);
    const notModified = await relay.get(`${HOUSEHOLDS}?limit=1`, {
      as: 'caseworker',
      headers: { 'if-none-match': etag },
    });
    assert.equal(notModified.statusCode, 304);
    cases.push([notModified, null]);
    for (const [response, code] of cases) {
      const record = recordOf(relay, response);
      assert.equal(record.error_code, code, `${response.statusCode} ${response.body}`);
      if (code !== null) assert.equal(response.json().code, code);
    }
  });
});

describe('audit.include_health', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay({ edit: setAuditOption('include_health: true') });
  });
  after(() => relay.close());

  it('audits /healthz and /ready when enabled', async () => {
    const health = await relay.get('/healthz');
    const ready = await relay.get('/ready');
    assert.equal(recordOf(relay, health).endpoint_kind, 'health');
    assert.equal(recordOf(relay, ready).endpoint_kind, 'ready');
    assert.equal(relay.auditRecords().length, 2);
  });
});

describe('audit write failures', () => {
  it('fail closed by default: a data request answers 503 audit.write_failed with no data', async () => {
    assert.ok(existsSync('/dev/full'), 'the test writes its audit records to /dev/full');
    const relay = await startDemoRelay({ edit: auditToDevFull });
    try {
      const page = await relay.get(`${HOUSEHOLDS}?limit=2`, { as: 'caseworker' });
      assertProblem(page, 503, 'audit.write_failed');
      const record = await relay.get(`${HOUSEHOLDS}/hh-1001`, { as: 'caseworker' });
      assertProblem(record, 503, 'audit.write_failed');
      const csv = await relay.get('/v1/datasets/social_protection/aggregates/payments_by_district?f=csv', {
        as: 'analyst',
      });
      assertProblem(csv, 503, 'audit.write_failed');
      for (const response of [page, record, csv]) {
        assert.doesNotMatch(response.body, /hh-\d|"data"|household/);
        assert.equal(response.headers.etag, undefined);
        assert.equal(response.headers.link, undefined, 'the next-page cursor of an undelivered page');
        // Nothing that described the refused result: its disclosure control, freshness, completeness.
        assert.deepEqual(
          Object.keys(response.headers).filter((name) => name.startsWith('x-ambit-')),
          [],
        );
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        assert.ok(response.headers['x-request-id']);
      }
      // Unaudited probes still answer: the gate applies to what would have been recorded.
      assert.equal((await relay.get('/healthz')).statusCode, 200);
    } finally {
      await relay.close();
    }
  });

  it('serve with availability_first despite the failed write', async () => {
    const relay = await startDemoRelay({
      edit: (text) => setAuditOption('write_policy: availability_first')(auditToDevFull(text)),
    });
    try {
      const page = await relay.get(`${HOUSEHOLDS}?limit=2`, { as: 'caseworker' });
      assert.equal(page.statusCode, 200);
      assert.equal(page.json().data.length, 2);
      assert.match(String(page.headers.link), /rel="next"/);
    } finally {
      await relay.close();
    }
  });
});
