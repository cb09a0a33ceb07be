import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { Principal } from '../../platform/auth/principal.ts';
import { principalHash } from './principal-hash.ts';

const principal: Principal = {
  id: 'caller',
  authMode: 'api_key',
  scopes: new Set(),
  credentialTag: 'sha256:0',
};

describe('principalHash', () => {
  it('is the keyed hash of the principal id, the same on every call', () => {
    const secret = Buffer.from('principal-hash-secret-0123456789abcdef');
    const expected = keyedHash(secret, 'principal', 'caller');
    assert.equal(principalHash(secret, principal), expected);
    assert.equal(principalHash(secret, principal), expected);
    assert.equal(principalHash(secret, { ...principal }), expected);
  });

  it('follows the secret it is asked with', () => {
    const one = Buffer.from('principal-hash-secret-one-0123456789ab');
    const two = Buffer.from('principal-hash-secret-two-0123456789ab');
    assert.equal(principalHash(one, principal), keyedHash(one, 'principal', 'caller'));
    assert.equal(principalHash(two, principal), keyedHash(two, 'principal', 'caller'));
  });
});
