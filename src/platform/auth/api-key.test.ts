import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { describe, it } from 'node:test';
import { isProblem } from '../problem/problem.ts';
import { createApiKeyAuthenticator, fingerprintOf } from './api-key.ts';

const authenticate = createApiKeyAuthenticator([
  { id: 'reader', fingerprint: fingerprintOf('reader-key'), scopes: ['a:rows'] },
  { id: 'viewer', fingerprint: fingerprintOf('viewer-key'), scopes: ['a:metadata'] },
]);

const rejects = (run: () => unknown) =>
  assert.throws(run, (error) => isProblem(error) && error.code === 'auth.invalid_credential');

describe('API-key authentication', () => {
  it('recognises each configured key and rejects any other', () => {
    assert.equal(authenticate('reader-key').id, 'reader');
    assert.equal(authenticate('viewer-key').id, 'viewer');
    rejects(() => authenticate('reader-key '));
    rejects(() => authenticate(''));
  });

  it('checks every key a connection presents, not only its first', () => {
    const connection = {};
    assert.equal(authenticate('reader-key', connection).id, 'reader');
    assert.equal(authenticate('reader-key', connection).id, 'reader');
    rejects(() => authenticate('reader-kez', connection));
    assert.equal(authenticate('viewer-key', connection).id, 'viewer');
    assert.equal(authenticate('reader-key', connection).id, 'reader');
    rejects(() => authenticate('viewer-key2', connection));
  });

  it('never lets one connection benefit from a key another connection presented', () => {
    const first = {};
    const second = {};
    assert.equal(authenticate('reader-key', first).id, 'reader');
    rejects(() => authenticate('stolen', second));
    assert.equal(authenticate('viewer-key', second).id, 'viewer');
    assert.equal(authenticate('reader-key', first).id, 'reader');
  });

  // A reverse proxy may carry several clients' requests on one kept-alive connection: the key one of them sent there
  // is another client's secret, and a guess must not be compared with it by an early-exit string comparison.
  it('compares a key presented again on a connection in constant time', (t) => {
    const connection = {};
    assert.equal(authenticate('reader-key', connection).id, 'reader');
    const compare = t.mock.method(crypto, 'timingSafeEqual');
    syncBuiltinESMExports();
    t.after(() => {
      compare.mock.restore();
      syncBuiltinESMExports();
    });
    assert.equal(authenticate('reader-key', connection).id, 'reader');
    assert.ok(compare.mock.callCount() > 0, 'the repeated key was compared with timingSafeEqual');
    rejects(() => authenticate('reader-kez', connection));
  });
});
