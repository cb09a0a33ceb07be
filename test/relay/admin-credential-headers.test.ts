// The admin read routes with the credential in `x-api-key`, or in both headers: `Authorization` decides, as on the
// public listener, so a second credential can never open a route the first one does not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from './assert-problem.ts';
import { closeHarness, type Harness, RELOAD_KEYS, startHarness } from './reload-fixture.ts';

const READS = [
  { url: '/metrics', scope: 'relay:metrics_read', holder: RELOAD_KEYS.metrics_only },
  { url: '/admin/v1/capabilities', scope: 'relay:ops_read', holder: RELOAD_KEYS.ops_only },
  { url: '/admin/v1/posture', scope: 'relay:ops_read', holder: RELOAD_KEYS.ops_only },
] as const;

/** A key that holds every scope but the admin ones. */
const READER = RELOAD_KEYS.reader;

describe('admin read routes and the two credential headers', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => closeHarness(h));
  const get = (url: string, headers: Record<string, string | string[]>) =>
    h.admin.inject({ method: 'GET', url, headers });

  for (const { url, scope, holder } of READS) {
    it(`GET ${url}: x-api-key alone opens it with ${scope}, and is refused 403 without`, async () => {
      assert.equal((await get(url, { 'x-api-key': holder })).statusCode, 200);
      assertProblem(
        await get(url, { 'x-api-key': READER }),
        403,
        'auth.scope_denied',
        `required scope: ${scope}`,
      );
    });

    it(`GET ${url}: with both headers, Authorization decides`, async () => {
      assert.equal(
        (await get(url, { authorization: `Bearer ${holder}`, 'x-api-key': holder })).statusCode,
        200,
      );
      assert.equal(
        (await get(url, { authorization: `Bearer ${holder}`, 'x-api-key': READER })).statusCode,
        200,
      );
      assertProblem(
        await get(url, { authorization: `Bearer ${READER}`, 'x-api-key': holder }),
        403,
        'auth.scope_denied',
        `required scope: ${scope}`,
      );
    });

    it(`GET ${url}: a bad Authorization is refused 401 whatever x-api-key holds`, async () => {
      assertProblem(
        await get(url, { authorization: 'Bearer not-a-key-0000000000000', 'x-api-key': holder }),
        401,
        'auth.invalid_credential',
      );
      assertProblem(
        await get(url, {
          authorization: `Basic ${Buffer.from(`x:${holder}`).toString('base64')}`,
          'x-api-key': holder,
        }),
        401,
        'auth.malformed_credential',
      );
      assertProblem(await get(url, { 'x-api-key': [holder, holder] }), 401, 'auth.malformed_credential');
    });
  }
});
