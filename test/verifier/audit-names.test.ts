// Names a caller sends that the verifier does not know (claim ids, target types, identifier schemes) reach the
// audit chain as keyed hashes, never as sent: a client that puts a person's identifier where a name belongs must
// not write it into the audit file. Names the configuration declares stay readable. The caller's `x-request-id`
// is free text too, recorded only as `correlation_id_hash` (verifier contract §6).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { correlationIdHash, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const SECRET_TEXT = /FAKE-PII-\d/;

describe('verifier audit of caller-sent names', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  before(async () => {
    upstream = await startFakeUpstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
    });
    verifier = await startTestVerifier({ relays: { civil: upstream.url, social: upstream.url } });
  });
  after(async () => {
    await verifier?.close();
    await upstream.close();
  });

  const lastRecord = () => verifier.auditRecords().at(-1) as Record<string, unknown>;

  it('hashes an unknown claim id, single and in a batch', async () => {
    const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
    const single = await verifier.evaluate({ target, claims: ['FAKE-PII-1'] });
    assert.equal(single.statusCode, 404);
    const record = lastRecord();
    assert.doesNotMatch(JSON.stringify(record), SECRET_TEXT);
    assert.match(String((record.claim_ids as string[])[0]), /^hmac-sha256:[0-9a-f]{64}$/);

    const batch = await verifier.post('/v1/batch-evaluations', {
      items: [{ target }],
      claims: ['person_alive', 'FAKE-PII-2'],
    });
    assert.equal(batch.statusCode, 404);
    const batchRecord = lastRecord();
    assert.doesNotMatch(JSON.stringify(batchRecord), SECRET_TEXT);
    const batchIds = batchRecord.claim_ids as string[];
    assert.equal(batchIds.length, 2, JSON.stringify(batchIds));
    assert.equal(batchIds[0], 'person_alive');
    // Keyed per name: the second unknown id does not share the first one's hash.
    assert.match(String(batchIds[1]), /^hmac-sha256:[0-9a-f]{64}$/);
    assert.notEqual(batchIds[1], (record.claim_ids as string[])[0]);
  });

  it('hashes an unknown target type and identifier scheme, and keeps known ones readable', async () => {
    const response = await verifier.evaluate({
      target: {
        type: 'FAKE-PII-3',
        identifiers: [
          { scheme: 'national_id', value: 'FAKE-1' },
          { scheme: 'FAKE-PII-4', value: 'x' },
        ],
      },
      claims: ['person_alive'],
    });
    // Refused (the claim is about a person) before any read, and audited with the type hashed.
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().code, 'target.type_mismatch');
    assert.doesNotMatch(response.body, SECRET_TEXT);
    const record = lastRecord();
    assert.doesNotMatch(JSON.stringify(record), SECRET_TEXT);
    assert.match(String(record.target_type), /^hmac-sha256:/);
    const schemes = record.identifier_schemes as string[];
    assert.ok(schemes.includes('national_id'), JSON.stringify(schemes));
    assert.ok(
      schemes.some((scheme) => /^hmac-sha256:/.test(scheme)),
      JSON.stringify(schemes),
    );
    assert.deepEqual(record.claim_ids, ['person_alive']);
  });

  it("records the caller's x-request-id only as a keyed hash, which finds the request's event", async () => {
    const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
    // A case number or a person's identifier is what many clients send as their correlation id.
    const sent = 'FAKE-PII-5';
    const ok = await verifier.evaluate(
      { target, claims: ['person_alive'] },
      { headers: { 'x-request-id': sent } },
    );
    assert.equal(ok.statusCode, 200, ok.body);
    const refused = await verifier.evaluate(
      { target, claims: ['person_alive'] },
      { headers: { 'x-request-id': 'FAKE-PII-6', 'x-api-key': 'unknown-key-000000000000000000000' } },
    );
    assert.equal(refused.statusCode, 401);
    const records = verifier.auditRecords();
    assert.doesNotMatch(JSON.stringify(records), SECRET_TEXT);
    for (const [id, response] of [
      [sent, ok],
      ['FAKE-PII-6', refused],
    ] as const) {
      const found = records.filter((record) => record.correlation_id_hash === correlationIdHash(id));
      assert.equal(found.length, 1, id);
      assert.equal(found[0]?.request_id, response.headers['x-request-id']);
    }
    const plain = await verifier.evaluate({ target, claims: ['person_alive'] });
    assert.equal(plain.statusCode, 200);
    assert.equal(lastRecord().correlation_id_hash, null);
  });
});
