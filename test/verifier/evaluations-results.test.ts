// POST /v1/evaluations on two real relays: answer formats, stored evaluations, keyed hashes, audit events.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';
import { canonicalJson } from '../../src/platform/audit/canonical-json.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { CCCEV, CLAIM_RESULT, EVIDENCE_PURPOSE, VERIFIER_AUDIT_SECRET } from '../helpers/verifier-harness.ts';
import { person, useEvaluations } from './evaluations-fixture.ts';

describe('verifier evaluations over two real relays', () => {
  const setup = useEvaluations();

  it('answers in the most preferred acceptable format every requested claim offers', async () => {
    const { verifier, alive } = setup;
    // birth_date offers the claim-result format only: CCCEV preferred by q, but claim-result acceptable too.
    const accept = `${CCCEV};q=1, ${CLAIM_RESULT};q=0.5`;
    const response = await verifier.evaluate(
      { target: person(alive), claims: ['birth_date'] },
      { headers: { accept } },
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], CLAIM_RESULT);
    // Preferred and offered: CCCEV.
    const both = await verifier.evaluate(
      { target: person(alive), claims: ['person_alive'] },
      { headers: { accept } },
    );
    assert.equal(both.headers['content-type'], CCCEV);
    // Nothing acceptable that the claim offers: 406, naming the claim.
    const refused = assertProblem(
      await verifier.evaluate(
        { target: person(alive), claims: ['birth_date'] },
        { headers: { accept: CCCEV } },
      ),
      406,
      'claim.format_not_supported',
    );
    assert.match(String(refused.detail), /birth_date/);
    // Plain JSON, as generic HTTP clients ask for it: the claim-result type (its media type says so).
    const plain = await verifier.evaluate(
      { target: person(alive), claims: ['birth_date'] },
      { headers: { accept: 'application/json' } },
    );
    assert.equal(plain.statusCode, 200, plain.body);
    assert.equal(plain.headers['content-type'], CLAIM_RESULT);
    assert.equal(JSON.parse(plain.body).results[0].claim_id, 'birth_date');
  });

  it('answers the claims in request order, a claim named twice once', async () => {
    const { verifier, enrolledHead } = setup;
    const response = await verifier.evaluate({
      target: person(enrolledHead),
      claims: ['household_enrolled', 'person_alive', { id: 'household_enrolled', version: '1' }],
    });
    assert.equal(response.statusCode, 200, response.body);
    const ids = JSON.parse(response.body).results.map((result: { claim_id: string }) => result.claim_id);
    assert.deepEqual(ids, ['household_enrolled', 'person_alive']);
  });

  it('renders CCCEV JSON-LD when Accept asks for it, quoted or unquoted', async () => {
    const { verifier, enrolledHead } = setup;
    for (const accept of [CCCEV, 'application/ld+json;profile=cccev']) {
      const response = await verifier.evaluate(
        { target: person(enrolledHead), claims: ['eligible'] },
        { headers: { accept } },
      );
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], CCCEV);
      const document = JSON.parse(response.body);
      assert.equal(document['@context'].cccev, 'http://data.europa.eu/m8g/');
      const [node] = document['@graph'];
      assert.equal(node['@type'], 'cccev:Evidence');
      assert.deepEqual(node['cccev:isProvidedBy'], {
        '@type': 'foaf:Agent',
        'dcterms:identifier': 'test.verifier',
      });
      assert.equal(
        node['cccev:supportsRequirement']['@id'],
        'https://demo.example.gov/requirements/eligible-head',
      );
      assert.equal(
        node['cccev:isConformantTo']['@id'],
        'https://demo.example.gov/evidence-types/eligibility',
      );
      assert.deepEqual(node['cccev:supportsValue']['cccev:value'], {
        '@value': true,
        '@type': 'xsd:boolean',
      });
      assert.equal(node['cccev:validityPeriod']['@type'], 'time:ProperInterval');
    }
  });

  it('stores each evaluation for the retention window', async () => {
    const { verifier, alive } = setup;
    const response = await verifier.evaluate({ target: person(alive), claims: ['person_alive'] });
    const [result] = JSON.parse(response.body).results;
    const store = verifier.verifier.runtime.store;
    const principalHash = (verifier
      .auditRecords()
      .find((entry) => entry.verification_id === result.evaluation_id)?.principal_id_hash ?? '') as string;
    const stored = await store.get(result.evaluation_id, principalHash);
    assert.ok(stored, 'stored under evaluation_id for its principal');
    assert.deepEqual(stored.results, [result]);
    assert.equal(stored.expires_at - stored.created_at, 15 * 60 * 1000);
    assert.equal(await store.get(result.evaluation_id, 'someone-else'), undefined);
  });

  it('keeps only keyed hashes of requests in the state store: a plain digest would give identifiers back', async () => {
    const { verifier, alive } = setup;
    const store = verifier.verifier.runtime.store;
    const plain = (value: unknown) =>
      `sha256:${createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')}`;
    const body = { target: person(alive), claims: ['person_alive'] };
    const response = await verifier.evaluate(body);
    const [result] = JSON.parse(response.body).results;
    const principalHash = verifier
      .auditRecords()
      .find((entry) => entry.verification_id === result.evaluation_id)?.principal_id_hash as string;
    const stored = await store.get(result.evaluation_id, principalHash);
    assert.match(String(stored?.request_hash), /^hmac-sha256:[0-9a-f]{64}$/);
    assert.notEqual(stored?.request_hash, plain(body));

    const claims: string[] = [];
    const begin = store.beginIdempotent.bind(store);
    store.beginIdempotent = (claim) => {
      claims.push(claim.requestHash);
      return begin(claim);
    };
    try {
      const batch = { items: [{ target: person(alive) }], claims: ['person_alive'] };
      const headers = { 'idempotency-key': `keyed-${Date.now()}` };
      const first = await verifier.post('/v1/batch-evaluations', batch, { headers });
      assert.equal(first.statusCode, 200, first.body);
      const replay = await verifier.post('/v1/batch-evaluations', batch, { headers });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(claims.length, 2);
      for (const hash of claims) {
        assert.match(hash, /^hmac-sha256:[0-9a-f]{64}$/);
        assert.notEqual(hash, plain({ body: batch, purpose: EVIDENCE_PURPOSE }));
      }
    } finally {
      store.beginIdempotent = begin;
    }
  });

  it('writes one hash-chained EvidenceAuditEvent per request, without identifiers or secrets', async () => {
    const { verifier, enrolledHead } = setup;
    const response = await verifier.evaluate({ target: person(enrolledHead), claims: ['eligible'] });
    const [result] = JSON.parse(response.body).results;
    const lines = readFileSync(verifier.auditPath, 'utf8').trim().split('\n');
    const chain = verifyAuditChain(lines, Buffer.from(VERIFIER_AUDIT_SECRET), null);
    assert.ok(chain.ok, JSON.stringify(chain));
    const record = verifier.auditRecords().find((entry) => entry.verification_id === result.evaluation_id);
    assert.ok(record);
    assert.equal(record.event_type, 'EvidenceAuditEvent');
    assert.equal(record.decision, 'evaluate');
    assert.equal(record.path, '/v1/evaluations');
    assert.equal(record.status, 200);
    assert.deepEqual(record.claim_ids, ['eligible']);
    assert.deepEqual(record.purposes, [EVIDENCE_PURPOSE]);
    assert.deepEqual(record.scopes_used, ['civil:evidence', 'social:evidence']);
    assert.equal(record.source_read_count, 2);
    assert.equal(record.source_count, 2);
    assert.equal(record.disclosure, 'predicate');
    assert.match(String(record.target_ref_hash), /^hmac-sha256:[0-9a-f]{64}$/);
    const text = readFileSync(verifier.auditPath, 'utf8');
    for (const secret of [
      String(enrolledHead.national_id),
      String(enrolledHead.person_id),
      'verifier-test-key',
    ]) {
      assert.ok(!text.includes(secret), `audit contains ${secret}`);
    }
  });
});
