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

  it('gives each principal its own hash, before and after many others were seen', () => {
    const secret = Buffer.from('principal-hash-secret-many-0123456789a');
    const of = (id: string) => principalHash(secret, { ...principal, id });
    assert.equal(of('alice'), keyedHash(secret, 'principal', 'alice'));
    assert.equal(of('bob'), keyedHash(secret, 'principal', 'bob'));
    assert.notEqual(of('alice'), of('bob'));
    // More ids than are kept: each still hashes to its own value, whether it was kept or not.
    const ids = Array.from({ length: 5000 }, (_, index) => `caller-${index}`);
    const hashes = new Set(ids.map(of));
    assert.equal(hashes.size, ids.length);
    for (const id of ['alice', 'bob', 'caller-0', 'caller-4999'])
      assert.equal(of(id), keyedHash(secret, 'principal', id), id);
  });
});
