// Discovery, catalogue, formats, OpenAPI and probes: authenticated, filtered to the caller's scopes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { assertProblem, assertSecurityHeaders } from '../helpers/http-checks.ts';
import { type Caller, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const ids = (claims: { id: string }[]) => claims.map((claim) => claim.id);

describe('verifier discovery', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
    });
  });
  after(() => verifier?.close());

  it('probes are public; everything else needs a credential', async () => {
    // The reference's liveness body, so that probes written against it read ours.
    assert.deepEqual(JSON.parse((await verifier.get('/healthz')).body), {
      status: 'ok',
      checks: { ok: 1, degraded: 0, failed: 0, total: 1 },
    });
    const ready = JSON.parse((await verifier.get('/ready')).body);
    assert.equal(ready.status, 'ready');
    assert.equal(ready.checks.state, 'memory');
    for (const path of [
      '/.well-known/evidence-service',
      '/v1/claims',
      '/v1/claims/person_alive',
      '/v1/formats',
      '/openapi.json',
    ]) {
      const response = await verifier.get(path);
      assertProblem(response, 401, 'auth.missing_credential');
      assertSecurityHeaders(response);
    }
  });

  it('keeps answers that depend on the credential out of shared caches, and varies them by it', async () => {
    const views = ['/.well-known/evidence-service', '/v1/claims', '/v1/claims/person_alive', '/v1/formats'];
    const answers = [];
    for (const path of [...views, '/openapi.json']) {
      answers.push(await verifier.get(path, { as: 'civil_only' }), await verifier.get(path));
    }
    answers.push(await verifier.get('/v1/claims/eligible', { as: 'civil_only' }));
    for (const response of answers) {
      const label = `${response.statusCode} ${response.body.slice(0, 60)}`;
      assert.equal(response.headers['cache-control'], 'private, no-store', label);
      const vary = String(response.headers.vary ?? '').toLowerCase();
      assert.ok(vary.includes('authorization') && vary.includes('x-api-key'), `${label}: vary ${vary}`);
    }
  });

  it('the capability envelope lists the claims and formats the caller may use', async () => {
    const response = await verifier.get('/.well-known/evidence-service', { as: 'civil_only' });
    assert.equal(response.statusCode, 200, response.body);
    const document = JSON.parse(response.body);
    assert.equal(document.service_id, 'test.verifier');
    assert.equal(document.claims_url, 'https://verifier.test/v1/claims');
    assert.deepEqual(document.auth.methods, ['api_key', 'bearer']);
    assert.deepEqual(document.operations, {
      evaluate: true,
      batch_evaluate: true,
      render: true,
      credential_issue: false,
    });
    assert.deepEqual(document.batch, { max_inline_subjects: 100, idempotency_window: 'PT15M' });
    assert.ok(!ids(document.claims).includes('eligible'), 'a claim needing social:evidence is hidden');
    assert.ok(ids(document.claims).includes('person_alive'));
    assert.ok(
      !response.body.includes('relay_civil') && !response.body.includes('civil_registry'),
      'no source names',
    );
  });

  it('names the issuer and the audience of holder proofs, as the verifier contract envelope does', async () => {
    const document = JSON.parse((await verifier.get('/.well-known/evidence-service', { as: 'full' })).body);
    // Without a credential profile, the service itself.
    assert.deepEqual(document.issuer, { id: 'test.verifier', name: 'test.verifier' });
    assert.equal(document.auth.audience, 'test.verifier');
    const issuing = await startTestVerifier({
      env: { ISSUER_JWK: '{"kty":"OKP"}' },
      edit: (text) =>
        text
          .replace(
            '  source_connections: {}\n',
            `  source_connections: {}
  signing_keys:
    k1: { provider: local_jwk_env, private_jwk_env: ISSUER_JWK, kid: "did:web:verifier.test#k1" }
  credential_profiles:
    p1: { format: application/dc+sd-jwt, issuer: "did:web:verifier.test", signing_key: k1,
          vct: https://verifier.test/credentials/alive/v1, allowed_claims: [person_alive] }
`,
          )
          .replace(
            '      operations: { batch_evaluate: { enabled: true } }\n',
            '      operations: { batch_evaluate: { enabled: true } }\n      credential_profiles: [p1]\n',
          ),
    });
    try {
      const withProfile = JSON.parse(
        (await issuing.get('/.well-known/evidence-service', { as: 'full' })).body,
      );
      assert.deepEqual(withProfile.issuer, { id: 'did:web:verifier.test', name: 'test.verifier' });
      assert.equal(withProfile.auth.audience, 'test.verifier');
      // Issuance is not built: a profile does not make it offered.
      assert.equal(withProfile.operations.credential_issue, false);
    } finally {
      await issuing.close();
    }
  });

  it('advertises x-api-key only where an API key is accepted', async () => {
    const full = await verifier.get('/.well-known/evidence-service', { as: 'full' });
    assert.deepEqual(JSON.parse(full.body).auth.methods, ['api_key', 'bearer']);
    const bearerOnly = await startTestVerifier({
      edit: (text) => text.replace(/\n {2}api_keys:\n[\s\S]*?\n {2}bearer_tokens:/, '\n  bearer_tokens:'),
    });
    try {
      assertProblem(await bearerOnly.get('/v1/formats', { as: 'full' }), 401, 'auth.missing_credential');
      const document = JSON.parse(
        (await bearerOnly.get('/.well-known/evidence-service', { as: 'bearer_only' })).body,
      );
      assert.deepEqual(document.auth.methods, ['bearer']);
      assert.equal(document.auth.api_key, undefined);
      const openapi = JSON.parse((await bearerOnly.get('/openapi.json', { as: 'bearer_only' })).body);
      assert.deepEqual(openapi.security, [{ bearer: [] }]);
      assert.deepEqual(Object.keys(openapi.components.securitySchemes), ['bearer']);
    } finally {
      await bearerOnly.close();
    }
  });

  it('offers batch evaluation only where a claim the caller may use enables it', async () => {
    const noBatches = await startTestVerifier({
      relays: { civil: 'http://127.0.0.1:9', social: 'http://127.0.0.1:9' },
      edit: (text) => text.replaceAll('batch_evaluate: { enabled: true', 'batch_evaluate: { enabled: false'),
    });
    try {
      const response = await noBatches.get('/.well-known/evidence-service', { as: 'full' });
      assert.equal(response.statusCode, 200, response.body);
      const document = JSON.parse(response.body);
      assert.ok(document.claims.length > 0);
      assert.deepEqual(document.operations, {
        evaluate: true,
        batch_evaluate: false,
        render: true,
        credential_issue: false,
      });
    } finally {
      await noBatches.close();
    }
  });

  it('filters /v1/claims to the scopes of each caller', async () => {
    const visible = async (as: Caller) =>
      ids(JSON.parse((await verifier.get('/v1/claims', { as })).body).data);
    const everyone = ['plugin_check', 'ledger_entry', 'batch_only'];
    assert.deepEqual(await visible('no_scopes'), everyone);
    const civil = await visible('civil_only');
    assert.deepEqual([...civil].sort(), [
      'audit_only',
      'batch_only',
      'birth_date',
      'depends_on_plugin',
      'ledger_entry',
      'person_alive',
      'person_registered',
      'plugin_check',
    ]);
    assert.ok(!civil.includes('eligible') && !civil.includes('household_enrolled'));
    const full = await visible('full');
    assert.ok(full.includes('eligible') && full.includes('household_enrolled'));
  });

  it('describes one claim, with its target inputs and disclosure policy; invisible claims are 404', async () => {
    const response = await verifier.get('/v1/claims/eligible', { as: 'full' });
    assert.equal(response.statusCode, 200, response.body);
    const claim = JSON.parse(response.body);
    assert.equal(claim.version, '1');
    assert.deepEqual(claim.disclosure, { default: 'predicate', allowed: ['predicate'], downgrade: 'deny' });
    assert.deepEqual(claim.depends_on, ['person_alive', 'household_enrolled']);
    assert.deepEqual(claim.target_inputs, [
      { path: 'target.identifiers.national_id', kind: 'identifier', name: 'national_id' },
      { path: 'target.identifiers.person_id', kind: 'identifier', name: 'person_id' },
    ]);
    assertProblem(await verifier.get('/v1/claims/eligible', { as: 'civil_only' }), 404, 'claim.not_found');
    assertProblem(await verifier.get('/v1/claims/nope', { as: 'full' }), 404, 'claim.not_found');
    // A path id of any length is named in part: the detail never echoes kilobytes of what the client sent.
    const long = `x${'y'.repeat(6000)}`;
    const detail = String(
      assertProblem(await verifier.get(`/v1/claims/${long}`, { as: 'full' }), 404, 'claim.not_found').detail,
    );
    assert.match(detail, /`xy{99}…`/);
    assert.ok(detail.length < 300, `${detail.length} characters of detail`);
  });

  it("states a claim's operations as booleans, as the contract's summary and the envelope do", async () => {
    // A client testing `operations.batch_evaluate` must not read an object (always truthy) as "offered".
    const summary = async (id: string) =>
      JSON.parse((await verifier.get(`/v1/claims/${id}`, { as: 'full' })).body);
    const single = await summary('birth_date');
    assert.deepEqual(single.operations, { evaluate: true, batch_evaluate: false });
    assert.equal('batch_max_subjects' in single, false);
    const batched = await summary('person_registered');
    assert.deepEqual(batched.operations, { evaluate: true, batch_evaluate: true });
    assert.equal(batched.batch_max_subjects, 3);
    assert.deepEqual((await summary('batch_only')).operations, { evaluate: false, batch_evaluate: true });
  });

  it("offers no operation of a claim whose rule, or a sub-claim's, is a plugin (every evaluation is 501)", async () => {
    for (const id of ['plugin_check', 'depends_on_plugin']) {
      const summary = JSON.parse((await verifier.get(`/v1/claims/${id}`, { as: 'full' })).body);
      assert.deepEqual(summary.operations, { evaluate: false, batch_evaluate: false }, id);
      assert.equal('batch_max_subjects' in summary, false, id);
      const response = await verifier.post(
        '/v1/evaluations',
        { target: { type: 'person', id: 'P1' }, claims: [id] },
        { as: 'full' },
      );
      assertProblem(response, 501, 'claim.operation_unsupported');
    }
    // A caller whose only claims are plugin ones is offered nothing to evaluate.
    const envelope = JSON.parse(
      (await verifier.get('/.well-known/evidence-service', { as: 'no_scopes' })).body,
    );
    assert.ok(ids(envelope.claims).includes('plugin_check'));
    assert.equal(
      envelope.operations.evaluate,
      envelope.claims.some((c: { operations: { evaluate: boolean } }) => c.operations.evaluate),
    );
  });

  it('names the CCCEV evidence type of a claim at the top of its summary, as its IRI is', async () => {
    const typed = await startTestVerifier({
      edit: (text) =>
        text.replace(
          '        evidence_type_iri: https://demo.example.gov/evidence-types/eligibility\n',
          '        evidence_type: Eligibility\n        evidence_type_iri: https://demo.example.gov/evidence-types/eligibility\n',
        ),
    });
    try {
      const claim = JSON.parse((await typed.get('/v1/claims/eligible', { as: 'full' })).body);
      assert.equal(claim.cccev.evidence_type, 'Eligibility', 'the config edit applied');
      assert.equal(claim.evidence_type, 'Eligibility');
      assert.equal(claim.evidence_type_iri, 'https://demo.example.gov/evidence-types/eligibility');
      const person = JSON.parse((await typed.get('/v1/claims/person_alive', { as: 'full' })).body);
      assert.ok(!('evidence_type' in person) && !('evidence_type_iri' in person), 'absent without cccev');
    } finally {
      await typed.close();
    }
  });

  it("lists the target attributes a CEL rule reads among a claim's target inputs", async () => {
    const response = await verifier.get('/v1/claims/household_size_plus', { as: 'full' });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(JSON.parse(response.body).target_inputs, [
      { path: 'target.attributes.newborns', kind: 'attribute', name: 'newborns', type: 'integer' },
      { path: 'target.identifiers.person_id', kind: 'identifier', name: 'person_id' },
    ]);
  });

  it('lists formats offered by visible claims; credentials stay disabled', async () => {
    const { formats } = JSON.parse((await verifier.get('/v1/formats', { as: 'full' })).body);
    assert.deepEqual(formats, [
      { id: 'application/vnd.ambit.claim-result+json', kind: 'claim_result', status: 'enabled' },
      { id: 'application/ld+json; profile="cccev"', kind: 'renderer', status: 'enabled' },
    ]);
  });

  it('serves a runtime OpenAPI document naming only the caller-visible claims, and the docs page', async () => {
    const civil = JSON.parse((await verifier.get('/openapi.json', { as: 'civil_only' })).body);
    assert.equal(civil.openapi, '3.1.0');
    assert.ok(civil.paths['/v1/evaluations'].post);
    const claimIds = civil.paths['/v1/claims/{claim_id}'].get.parameters[0].schema.enum as string[];
    assert.ok(claimIds.includes('person_alive') && !claimIds.includes('eligible'));
    const docs = await verifier.get('/docs');
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /openapi\.json/);
    // An overlong URI is refused before routing, so every operation declares the 414 it may answer.
    const longUri = await verifier.get(`/v1/claims?x=${'a'.repeat(9000)}`, { as: 'civil_only' });
    assert.equal(longUri.statusCode, 414);
    for (const [path, item] of Object.entries(civil.paths as Record<string, Record<string, unknown>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const responses = (operation as { responses: Record<string, unknown> }).responses;
        assert.ok(responses['414'], `${method} ${path} declares 414`);
      }
    }
  });

  it('declares the 500 an audited GET answers when its audit record cannot be written', async () => {
    const document = JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body);
    const failing = await startTestVerifier({
      // Every audit write fails (ENOSPC): the default fail_closed policy answers 500.
      edit: (text) => text.replace(/^( {2}path: ).*$/m, '$1/dev/full'),
    });
    try {
      for (const [docPath, url] of [
        ['/.well-known/evidence-service', '/.well-known/evidence-service'],
        ['/v1/claims', '/v1/claims'],
        ['/v1/claims/{claim_id}', '/v1/claims/person_alive'],
        ['/v1/formats', '/v1/formats'],
      ] as const) {
        assertProblem(await failing.get(url, { as: 'full' }), 500, 'audit.write_failed');
        assert.ok(document.paths[docPath].get.responses['500'], `${docPath} declares 500`);
      }
    } finally {
      await failing.close();
    }
  });

  it('the OpenAPI request schemas accept exactly the bodies the server parses', async () => {
    const document = JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body);
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ ...document, $id: 'verifier' });
    const schemaAccepts = (name: string, body: unknown) =>
      (ajv.getSchema(`verifier#/components/schemas/${name}`) as (value: unknown) => boolean)(body);
    const target = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
    const evaluation = (over: Record<string, unknown>) => ({ target, claims: ['person_alive'], ...over });
    const cases: [string, Record<string, unknown>][] = [
      ['plain', evaluation({})],
      ['target profile', evaluation({ target: { ...target, profile: 'p' } })],
      [
        'identifier issuer',
        evaluation({ target: { type: 'person', identifiers: [{ ...target.identifiers[0], issuer: 'i' }] } }),
      ],
      ['unquoted CCCEV format', evaluation({ format: 'application/ld+json; profile=cccev' })],
      ['claim with version', evaluation({ claims: [{ id: 'person_alive', version: '1' }] })],
      [
        'unknown identifier member',
        evaluation({ target: { type: 'person', identifiers: [{ ...target.identifiers[0], x: 1 }] } }),
      ],
      ['unknown claim member', evaluation({ claims: [{ id: 'person_alive', x: 1 }] })],
      ['33 claims', evaluation({ claims: Array(33).fill('person_alive') })],
      ['object attribute', evaluation({ target: { ...target, attributes: { a: { b: 1 } } } })],
      ['empty type', evaluation({ target: { ...target, type: '' } })],
      [
        'long identifier value',
        evaluation({
          target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'x'.repeat(1025) }] },
        }),
      ],
    ];
    for (const [label, body] of cases) {
      const response = await verifier.evaluate(body);
      const serverAccepts = JSON.parse(response.body).code !== 'request.invalid';
      assert.equal(schemaAccepts('EvaluationRequest', body), serverAccepts, `${label}: ${response.body}`);
      const batch = { items: [{ target: body.target }], claims: body.claims };
      const batchResponse = await verifier.post('/v1/batch-evaluations', batch);
      const batchAccepted = JSON.parse(batchResponse.body).code !== 'request.invalid';
      assert.equal(schemaAccepts('BatchEvaluationRequest', batch), batchAccepted, `batch ${label}`);
    }
    assert.ok(schemaAccepts('RenderRequest', { claims: [{ id: 'person_alive' }] }), 'claims by object');
    assert.ok(!schemaAccepts('RenderRequest', { claims: [] }), 'the server refuses an empty list');
    const evaluate = document.paths['/v1/evaluations'].post.responses;
    for (const status of ['413', '415', '500', '504']) assert.ok(evaluate[status], `evaluations ${status}`);
    assert.ok(document.paths['/ready'].get.responses['503'], 'readiness 503');
    // Client generators name their methods after operationIds: every operation has its own.
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId),
    );
    assert.ok(
      ids.every((id) => typeof id === 'string'),
      'every operation has an operationId',
    );
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    // Only an OIDC token check answers these (test/verifier/oidc.test.ts).
    assert.doesNotMatch(JSON.stringify(document.paths), /client not allowed|issuer keys/i);
  });

  it('audits discovery requests but not probes', async () => {
    const before = verifier.auditRecords().length;
    await verifier.get('/healthz');
    await verifier.get('/v1/formats', { as: 'full' });
    const records = verifier.auditRecords().slice(before);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.endpoint_kind, 'formats');
    assert.equal(records[0]?.decision, 'allowed');
  });

  it('records a path no route matched without its text, which may hold an identifier', async () => {
    const before = verifier.auditRecords().length;
    const probe = await verifier.get('/v1/evaluations/FAKE-V404SECRET', { as: 'full' });
    assert.equal(probe.statusCode, 404);
    const records = verifier.auditRecords().slice(before);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.path, '(no route)');
    assert.ok(!JSON.stringify(records).includes('FAKE-V404SECRET'));
  });
});
