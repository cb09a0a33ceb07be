// POST /v1/batch-evaluations, what it keeps: stored item evaluations, one chained audit event per item, handles
// and audit hashes for subjects found by an attribute, and the idempotency key.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import {
  aliveByAttributeClaim,
  CALLER_KEYS,
  CCCEV,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  VERIFIER_AUDIT_SECRET,
} from '../helpers/verifier-harness.ts';
import type { Row } from '../relay/read-demo-data.ts';
import { BATCH, type Item, person, rowReads, useBatchEvaluations } from './batch-evaluations-fixture.ts';

describe('batch evaluations', () => {
  const setup = useBatchEvaluations();

  it('stores each item evaluation for its caller, ready to render in the batch format', async () => {
    const { bulk, heads } = setup;
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
    const { bulk, heads } = setup;
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

  it('writes an item target type or identifier scheme the configuration does not declare as a keyed hash', async () => {
    const { bulk, heads } = setup;
    const [first] = heads as [Row];
    const known = person(first);
    const response = await bulk.post(BATCH, {
      items: [
        { target: { ...known, identifiers: [...known.identifiers, { scheme: 'FAKE-PII-41', value: 'x' }] } },
        { target: { ...known, type: 'FAKE-PII-42' } },
      ],
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as { batch_id: string };
    const items = bulk
      .auditRecords()
      .filter((record) => record.batch_id === body.batch_id && record.endpoint_kind === 'batch_item')
      .sort((a, b) => Number(a.input_index) - Number(b.input_index));
    assert.equal(items.length, 2);
    assert.doesNotMatch(JSON.stringify(items), /FAKE-PII-4/);
    const [withScheme, withType] = items;
    assert.equal(withScheme?.target_type, 'person');
    const schemes = withScheme?.identifier_schemes as string[];
    assert.ok(schemes.includes('national_id') && schemes.includes('person_id'), JSON.stringify(schemes));
    assert.ok(
      schemes.some((scheme) => /^hmac-sha256:[0-9a-f]{64}$/.test(scheme)),
      JSON.stringify(schemes),
    );
    assert.match(String(withType?.target_type), /^hmac-sha256:[0-9a-f]{64}$/);
  });

  it('gives subjects looked up by an attribute each their own handle and audit hash', async () => {
    const { plainCivil, heads, deceased } = setup;
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
    const body = () => ({ items: [{ target: person(setup.heads[0] as Row) }], claims: ['person_alive'] });

    it('replays the stored response for the same request by the same caller, reading nothing again', async () => {
      const { civil, bulk } = setup;
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

    it('takes the same JSON as the same request, whatever its whitespace or member order', async () => {
      const { bulk } = setup;
      const headers = { 'idempotency-key': 'key-same-json-1' };
      const first = await bulk.post(BATCH, body(), { headers });
      assert.equal(first.statusCode, 200, first.body);
      const { items, claims } = body();
      const reordered = await bulk.inject({
        method: 'POST',
        url: BATCH,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'data-purpose': EVIDENCE_PURPOSE,
          'x-api-key': CALLER_KEYS.full,
        },
        payload: JSON.stringify({ claims, items }, null, 2),
      });
      assert.equal(reordered.headers['idempotent-replayed'], 'true');
      assert.equal(reordered.body, first.body);
    });

    it('answers 409 idempotency.conflict for the same key with another body or purpose', async () => {
      const { civil, bulk } = setup;
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
      const { bulk } = setup;
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
      const { bulk } = setup;
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
});
