// Verifier error table (§2.12), refused for their caller before any read: credentials, scopes, claims.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import { CALLER_KEYS } from '../helpers/verifier-harness.ts';

import { ALIVE, useErrorTable } from './error-table-fixture.ts';

describe('verifier error table: requests refused', () => {
  const table = useErrorTable();

  it('401 auth.missing_credential for an absent, malformed or unknown credential; 400 auth.multiple_credentials', async () => {
    const body = { target: ALIVE, claims: ['person_alive'] };
    // An empty header value sends no header: no credential at all.
    const absent = await table.deniedBeforeReads(body, 401, 'auth.missing_credential', {
      headers: { 'x-api-key': '' },
    });
    assert.equal(table.verifier.auditRecords().at(-1)?.error_code, 'auth.missing_credential');
    // No distinction between absent and wrong (verifier contract §2.1): which keys exist is not told.
    const unknown = await table.deniedBeforeReads(body, 401, 'auth.missing_credential', {
      headers: { 'x-api-key': 'not-a-key' },
    });
    // The audit keeps the precise reason.
    assert.equal(table.verifier.auditRecords().at(-1)?.error_code, 'auth.invalid_credential');
    const malformed = await table.deniedBeforeReads(body, 401, 'auth.missing_credential', {
      headers: { 'x-api-key': '', authorization: 'Token abc' },
    });
    assert.equal(table.verifier.auditRecords().at(-1)?.error_code, 'auth.malformed_credential');
    // Nor does the detail tell them apart.
    assert.equal(absent.detail, 'Send a valid `x-api-key` or `Authorization: Bearer` credential.');
    assert.equal(unknown.detail, absent.detail);
    assert.equal(malformed.detail, absent.detail);
    await table.deniedBeforeReads(body, 400, 'auth.multiple_credentials', {
      headers: { authorization: `Bearer ${CALLER_KEYS.full}` },
    });
  });

  it('accepts a bearer token only in Authorization, and an API key in either header', async () => {
    const asBearer = await table.verifier.evaluate(
      { target: ALIVE, claims: ['person_alive'] },
      { as: 'bearer_only' },
    );
    assert.equal(asBearer.statusCode, 200, asBearer.body);
    const bearerInApiKey = await table.verifier.evaluate(
      { target: ALIVE, claims: ['person_alive'] },
      { headers: { 'x-api-key': CALLER_KEYS.bearer_only } },
    );
    assertProblem(bearerInApiKey, 401, 'auth.missing_credential');
    const keyAsBearer = await table.verifier.evaluate(
      { target: ALIVE, claims: ['person_alive'] },
      { as: 'full', headers: { 'x-api-key': '', authorization: `Bearer ${CALLER_KEYS.full}` } },
    );
    assert.equal(keyAsBearer.statusCode, 200, keyAsBearer.body);
  });

  it('403 auth.scope_denied for a claim (or a sub-claim) the caller lacks a scope for, before any read', async () => {
    await table.deniedBeforeReads({ target: ALIVE, claims: ['person_alive'] }, 403, 'auth.scope_denied', {
      as: 'no_scopes',
    });
    // eligible needs social:evidence through its household_enrolled sub-claim.
    await table.deniedBeforeReads({ target: ALIVE, claims: ['eligible'] }, 403, 'auth.scope_denied', {
      as: 'civil_only',
    });
    await table.deniedBeforeReads(
      { target: ALIVE, claims: ['person_alive', 'eligible'] },
      403,
      'auth.scope_denied',
      {
        as: 'civil_only',
      },
    );
  });

  it('403 the same whatever version a caller without the scopes names, single or batch', async () => {
    const answers = new Set<string>();
    for (const ref of [
      'household_enrolled',
      { id: 'household_enrolled', version: '1' },
      { id: 'household_enrolled', version: '9' },
    ]) {
      const single = await table.deniedBeforeReads(
        { target: ALIVE, claims: [ref] },
        403,
        'auth.scope_denied',
        {
          as: 'civil_only',
        },
      );
      const batch = await table.verifier.post(
        '/v1/batch-evaluations',
        { items: [{ target: ALIVE }], claims: [ref] },
        { as: 'civil_only' },
      );
      answers.add(`${single.detail}`).add(`${assertProblem(batch, 403, 'auth.scope_denied').detail}`);
    }
    assert.equal(answers.size, 1, [...answers].join(' / '));
    assert.equal(table.requests.length, 0);
    // A caller holding the scopes is told the version does not exist.
    for (const path of ['/v1/evaluations', '/v1/batch-evaluations']) {
      const body = { claims: [{ id: 'household_enrolled', version: '9' }] };
      const response = await table.verifier.post(
        path,
        path === '/v1/evaluations' ? { target: ALIVE, ...body } : { items: [{ target: ALIVE }], ...body },
      );
      assertProblem(response, 404, 'claim.version_not_found');
    }
  });

  it('403 the same whatever purpose, format, disclosure or target names, and no hint at a hidden claim', async () => {
    const hidden = { claims: ['person_alive', 'household_enrolled'] };
    const variants: [Record<string, unknown>, Record<string, string>][] = [
      [{ target: ALIVE }, {}],
      // Each of these would be refused for itself, were the claim visible.
      [{ target: ALIVE }, { 'data-purpose': '' }],
      [{ target: ALIVE, purpose: 'https://elsewhere.example/purpose' }, { 'data-purpose': '' }],
      [{ target: ALIVE, disclosure: 'value' }, {}],
      [{ target: ALIVE, format: 'application/ld+json; profile="cccev"' }, {}],
      [{ target: { type: 'organisation', id: 'org-1' } }, {}],
      [{ target: { type: 'person', attributes: { newborns: 'two' } } }, {}],
    ];
    const answers = new Set<string>();
    for (const [body, headers] of variants) {
      const problem = await table.deniedBeforeReads({ ...hidden, ...body }, 403, 'auth.scope_denied', {
        as: 'civil_only',
        headers,
      });
      answers.add(`${problem.claim_id} ${problem.detail}`);
    }
    assert.deepEqual(
      [...answers],
      ['household_enrolled The credential lacks a scope claim household_enrolled requires.'],
    );
    // A misspelt hidden claim is an unknown one, hinted at among the visible claims only.
    const misspelt = await table.deniedBeforeReads(
      { target: ALIVE, claims: ['household_enroled'] },
      404,
      'claim.not_found',
      { as: 'civil_only' },
    );
    assert.equal(misspelt.detail, 'No claim `household_enroled` is visible.');
  });

  it('404 claim.not_found with a hint, and claim.version_not_found', async () => {
    const problem = await table.deniedBeforeReads(
      { target: ALIVE, claims: ['person_alvie'] },
      404,
      'claim.not_found',
    );
    assert.match(String(problem.detail), /did you mean `person_alive`/);
    await table.deniedBeforeReads(
      { target: ALIVE, claims: [{ id: 'birth_date', version: '1' }] },
      404,
      'claim.version_not_found',
    );
  });
});
