// Verifier error table (§2.12), refused by claim policy: purposes, formats, disclosure, operations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ALIVE, json, useErrorTable } from './error-table-fixture.ts';

describe('verifier error table: requests refused', () => {
  const table = useErrorTable();

  it('purpose rules: header or body, both must agree, one is required, allowed_purposes and claim purpose', async () => {
    const body = { target: ALIVE, claims: ['person_alive'] };
    await table.deniedBeforeReads(body, 400, 'auth.purpose_required', { headers: { 'data-purpose': '' } });
    await table.deniedBeforeReads(
      { ...body, purpose: 'https://demo.example.gov/purpose/audit' },
      400,
      'request.invalid',
    );
    await table.deniedBeforeReads(body, 403, 'purpose.not_allowed', {
      headers: { 'data-purpose': 'https://elsewhere.example/p' },
    });
    await table.deniedBeforeReads({ target: ALIVE, claims: ['audit_only'] }, 403, 'purpose.not_allowed');
    const inBody = await table.verifier.evaluate(
      { ...body, purpose: 'https://demo.example.gov/purpose/audit' },
      { headers: { 'data-purpose': '' } },
    );
    assert.equal(inBody.statusCode, 200, inBody.body);
    assert.equal(table.requests[0]?.headers['data-purpose'], 'https://demo.example.gov/purpose/audit');
    const audit = await table.verifier.evaluate(
      { target: ALIVE, claims: ['audit_only'] },
      { headers: { 'data-purpose': 'https://demo.example.gov/purpose/audit' } },
    );
    assert.equal(audit.statusCode, 200, audit.body);
  });

  it('406 claim.format_not_supported: unknown Accept, body format refused by Accept, claim without the format', async () => {
    const body = { target: ALIVE, claims: ['person_alive'] };
    for (const accept of ['application/xml', 'text/html', 'application/ld+json']) {
      await table.deniedBeforeReads(body, 406, 'claim.format_not_supported', { headers: { accept } });
    }
    await table.deniedBeforeReads(
      { ...body, format: 'application/ld+json; profile="cccev"' },
      406,
      'claim.format_not_supported',
      {
        headers: { accept: 'application/vnd.ambit.claim-result+json' },
      },
    );
    await table.deniedBeforeReads(
      { target: ALIVE, claims: ['birth_date'] },
      406,
      'claim.format_not_supported',
      {
        headers: { accept: 'application/ld+json; profile=cccev' },
      },
    );
  });

  it('403 claim.disclosure_not_allowed when the claim denies the level; downgrades otherwise', async () => {
    await table.deniedBeforeReads(
      { target: ALIVE, claims: ['eligible'], disclosure: 'value' },
      403,
      'claim.disclosure_not_allowed',
    );
    table.handler = (_request, response) => json(response, 200, { data: [{ birth_date: '1990-01-02' }] });
    // birth_date downgrades to its default (redacted) when predicate is asked for.
    const response = await table.verifier.evaluate({
      target: ALIVE,
      claims: ['birth_date'],
      disclosure: 'predicate',
    });
    assert.equal(response.statusCode, 200, response.body);
    const [result] = JSON.parse(response.body).results;
    assert.deepEqual([result.disclosure, result.value, result.satisfied], ['redacted', null, null]);
    assert.ok(!response.body.includes('1990-01-02'));
  });

  it('501 claim.operation_unsupported for plugin rules (directly or as a sub-claim) and disabled operations', async () => {
    for (const claim of ['plugin_check', 'depends_on_plugin', 'batch_only']) {
      await table.deniedBeforeReads({ target: ALIVE, claims: [claim] }, 501, 'claim.operation_unsupported');
    }
  });
});
