// POST /v1/evaluations against two real demo relays on loopback: rules, sub-claims across relays with
// different tokens, provenance, disclosure, stored evaluations and audit.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { verifyAuditChain } from '../../src/platform/audit/audit-envelope.ts';
import { canonicalJson } from '../../src/platform/audit/canonical-json.ts';
import { assertProblem, ULID_PATTERN } from '../helpers/http-checks.ts';
import { startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import {
  CCCEV,
  CLAIM_RESULT,
  EVIDENCE_PURPOSE,
  startTestVerifier,
  type TestVerifier,
  VERIFIER_AUDIT_SECRET,
} from '../helpers/verifier-harness.ts';
import { type Row, readDemoData } from '../relay/read-demo-data.ts';

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

describe('verifier evaluations over two real relays', () => {
  let civil: TestRelay;
  let social: TestRelay;
  let verifier: TestVerifier;
  let alive: Row;
  let deceased: Row;
  let enrolledHead: Row;
  let pendingHead: Row;

  before(async () => {
    [civil, social] = await Promise.all([startDemoRelay(), startDemoRelay()]);
    const [civilUrl, socialUrl] = await Promise.all([listen(civil), listen(social)]);
    verifier = await startTestVerifier({ relays: { civil: civilUrl, social: socialUrl } });
    const data = await readDemoData();
    const heads = (status: string) =>
      data.households
        .filter((household) => household.enrollment_status === status)
        .map((household) =>
          data.persons.find((row) => row.person_id === household.head_of_household_person_id),
        )
        .filter((row): row is Row => row !== undefined && row.deceased === false);
    enrolledHead = heads('enrolled')[0] as Row;
    pendingHead = heads('pending')[0] as Row;
    alive = data.persons.find((row) => row.deceased === false) as Row;
    deceased = data.persons.find((row) => row.deceased === true) as Row;
    assert.ok(
      enrolledHead && pendingHead && alive && deceased,
      'demo data has the subjects these tests need',
    );
  });

  after(async () => {
    await verifier?.close();
    await Promise.all([civil?.close(), social?.close()]);
  });

  it('evaluates a CEL claim with predicate disclosure: the outcome only, never the row', async () => {
    const response = await verifier.evaluate({ target: person(alive), claims: ['person_alive'] });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], CLAIM_RESULT);
    // A result is the caller's alone: no shared cache may keep it.
    assert.equal(response.headers['cache-control'], 'no-store');
    const { results } = JSON.parse(response.body);
    assert.equal(results.length, 1);
    const [result] = results;
    assert.match(result.evaluation_id, ULID_PATTERN);
    assert.deepEqual(
      {
        ...result,
        evaluation_id: undefined,
        issued_at: undefined,
        target_ref: undefined,
        provenance: undefined,
      },
      {
        evaluation_id: undefined,
        claim_id: 'person_alive',
        claim_version: '1',
        subject_type: 'person',
        target_ref: undefined,
        value: true,
        satisfied: true,
        disclosure: 'predicate',
        format: CLAIM_RESULT,
        issued_at: undefined,
        expires_at: null,
        provenance: undefined,
      },
    );
    assert.deepEqual(result.target_ref.identifier_schemes, ['national_id', 'person_id']);
    assert.match(result.target_ref.handle, /^amref:v1:[0-9a-f]{32}$/);
    assert.ok(!response.body.includes(String(alive.national_id)), 'no identifier in the response');
    assert.ok(!response.body.includes('deceased'), 'no source field in the response');
    assert.deepEqual(result.provenance, {
      schema_version: 'ambit-verifier-claim-provenance/v1',
      generated_by: {
        type: 'claim_evaluation',
        service_id: 'test.verifier',
        evaluation_id: result.evaluation_id,
        claim_id: 'person_alive',
        claim_version: '1',
      },
      used: { source_count: 1, source_versions: {} },
      derived_from: [],
    });

    const dead = JSON.parse(
      (await verifier.evaluate({ target: person(deceased), claims: ['person_alive'] })).body,
    );
    assert.equal(dead.results[0].satisfied, false);
  });

  it('evaluates exists and extract rules; value disclosure shows the extracted value', async () => {
    const response = await verifier.evaluate({
      target: person(alive),
      claims: ['person_registered', { id: 'birth_date', version: '2' }],
      disclosure: 'value',
    });
    assert.equal(response.statusCode, 200, response.body);
    const [registered, birth] = JSON.parse(response.body).results;
    // person_registered allows predicate only and downgrades to redacted.
    assert.equal(registered.disclosure, 'redacted');
    assert.equal(registered.value, null);
    assert.equal(registered.satisfied, null);
    assert.deepEqual(registered.redacted_fields, ['person_registered']);
    assert.equal(birth.disclosure, 'value');
    assert.equal(birth.value, alive.birth_date);
    assert.equal(birth.satisfied, null);
    assert.equal(registered.evaluation_id, birth.evaluation_id);
  });

  it('composes sub-claims from two relays, each read with its own token: source_count 2', async () => {
    const civilBefore = rowReads(civil).length;
    const socialBefore = rowReads(social).length;
    const response = await verifier.evaluate(
      { target: person(enrolledHead), claims: ['eligible'] },
      { headers: { 'x-request-id': 'corr-eligible-1' } },
    );
    assert.equal(response.statusCode, 200, response.body);
    const [result] = JSON.parse(response.body).results;
    assert.equal(result.satisfied, true);
    assert.equal(result.provenance.used.source_count, 2);
    assert.deepEqual(result.provenance.derived_from, [
      { claim_id: 'person_alive', claim_version: '1' },
      { claim_id: 'household_enrolled', claim_version: '1' },
    ]);
    const civilReads = rowReads(civil).slice(civilBefore);
    const socialReads = rowReads(social).slice(socialBefore);
    assert.equal(civilReads.length, 1);
    assert.equal(socialReads.length, 1);
    assert.equal(civilReads[0]?.principal_id, 'verifier_service');
    assert.equal(socialReads[0]?.principal_id, 'caseworker');
    assert.equal(civilReads[0]?.dataset_id, 'civil_registry');
    assert.equal(socialReads[0]?.dataset_id, 'social_protection');
    for (const read of [...civilReads, ...socialReads]) {
      assert.equal(read.purpose, EVIDENCE_PURPOSE);
      assert.equal(read.client_request_id, 'corr-eligible-1');
      assert.equal(read.row_count, 1);
    }

    const pending = JSON.parse(
      (await verifier.evaluate({ target: person(pendingHead), claims: ['eligible'] })).body,
    );
    assert.equal(pending.results[0].satisfied, false);
  });

  it('binds target attributes into ctx for CEL (integer arithmetic)', async () => {
    const data = await readDemoData();
    const household = data.households.find(
      (row) => row.head_of_household_person_id === enrolledHead.person_id,
    ) as Row;
    const target = { ...person(enrolledHead), attributes: { newborns: 2 } };
    const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(JSON.parse(response.body).results[0].value, Number(household.household_size) + 2);
  });

  it('requires the target attributes a CEL rule reads (400 before any read, instead of a rule failure)', async () => {
    const reads = rowReads(social).length;
    for (const attributes of [undefined, {}, { newborns: null }, { newborns: '  ' }]) {
      const target = { ...person(enrolledHead), ...(attributes === undefined ? {} : { attributes }) };
      const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
      const problem = assertProblem(response, 400, 'target.identifier_missing');
      assert.match(String(problem.detail), /target\.attributes\.newborns/);
    }
    assert.equal(rowReads(social).length, reads, 'no source read happens');
  });

  it('refuses a target attribute of another type than the claim declares (400 before any read, not a 500)', async () => {
    const reads = rowReads(social).length;
    for (const newborns of ['two', true, 2.5, '2']) {
      const target = { ...person(enrolledHead), attributes: { newborns } };
      const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
      const problem = assertProblem(response, 400, 'request.invalid');
      assert.match(String(problem.detail), /`target\.attributes\.newborns` must be of type integer/);
    }
    assert.equal(rowReads(social).length, reads, 'no source read happens');
  });

  it('takes a target as large as the request limits allow into a CEL rule (the rule input limit bounds sourced data)', async () => {
    // 32 attributes of 1,024 control characters: about 200 KB as JSON, over cel.max_binding_json_bytes (64 KiB).
    const attributes: Record<string, string | number> = { newborns: 1 };
    for (let index = 1; index < 32; index++) attributes[`note_${index}`] = '\u0001'.repeat(1024);
    const target = { ...person(enrolledHead), attributes };
    const response = await verifier.evaluate({ target, claims: ['household_size_plus'] });
    assert.equal(response.statusCode, 200, response.body);
    const tooMany = { ...target, attributes: { ...attributes, note_32: 'x' } };
    const refused = assertProblem(
      await verifier.evaluate({ target: tooMany, claims: ['household_size_plus'] }),
      400,
      'request.invalid',
    );
    assert.match(String(refused.detail), /target\.attributes/);
  });

  it('refuses an identifier over 1,024 bytes in UTF-8 (400), which no relay URL could carry, before any read', async () => {
    const reads = rowReads(civil).length;
    const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: '\u4e2d'.repeat(400) }] };
    const problem = assertProblem(
      await verifier.evaluate({ target, claims: ['person_alive'] }),
      400,
      'request.invalid',
    );
    assert.match(String(problem.detail), /target\.identifiers\.0\.value.*1024 bytes/);
    assert.equal(rowReads(civil).length, reads);
    // 1,024 bytes exactly is a value like any other (here: no such person).
    const largest = {
      type: 'person',
      identifiers: [{ scheme: 'national_id', value: `${'\u4e2d'.repeat(341)}x` }],
    };
    assertProblem(
      await verifier.evaluate({ target: largest, claims: ['person_alive'] }),
      409,
      'evidence.not_available',
    );
  });

  it('answers 409 evidence.not_available for an unknown subject, with the precise reason only in audit', async () => {
    const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000000' }] };
    const response = await verifier.evaluate({ target, claims: ['person_alive'] });
    const body = assertProblem(response, 409, 'evidence.not_available');
    assert.ok(!response.body.includes('target.not_found'));
    assert.ok(!response.body.includes('FAKE-000000'));
    const record = verifier.auditRecords().find((entry) => entry.request_id === body.request_id);
    assert.equal(record?.error_code, 'target.not_found');
    assert.equal(record?.problem_code, 'evidence.not_available');
    assert.equal(record?.decision, 'evaluate_denied');
    assert.equal(record?.source_read_count, 1);
  });

  it('answers in the most preferred acceptable format every requested claim offers', async () => {
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
  });

  it('renders CCCEV JSON-LD when Accept asks for it, quoted or unquoted', async () => {
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
