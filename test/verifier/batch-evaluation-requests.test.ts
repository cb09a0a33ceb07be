// POST /v1/batch-evaluations, the request itself: per-item purposes, format negotiation, and the batches refused
// before any read (auth, scopes, claims, operation, size, body, disclosure).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import { CLAIM_RESULT, EVIDENCE_PURPOSE } from '../helpers/verifier-harness.ts';
import type { Row } from '../relay/read-demo-data.ts';
import { BATCH, person, rowReads, useBatchEvaluations } from './batch-evaluations-fixture.ts';

describe('batch evaluations', () => {
  const setup = useBatchEvaluations();

  it('uses each item purpose, and checks every purpose before any read', async () => {
    const { civil, bulk, heads } = setup;
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
    const { bulk, heads } = setup;
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
    const { civil, social, bulk, heads } = setup;
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
      // Claim by claim in request order: each claim's existence and scopes before the next claim's.
      [
        { items, claims: ['person_alive', 'eligible', 'nope'] },
        403,
        'auth.scope_denied',
        { as: 'civil_only' },
      ],
      [{ items, claims: ['person_alive', 'nope', 'eligible'] }, 404, 'claim.not_found', { as: 'civil_only' }],
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
});
