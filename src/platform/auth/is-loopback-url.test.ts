// The loopback exception to the https rule: which hosts count, in every spelling the URL parser accepts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLoopbackUrl } from './oidc-bearer.ts';

describe('isLoopbackUrl', () => {
  it('accepts loopback hosts', () => {
    for (const url of [
      'http://127.0.0.1:8080/realms/x',
      'http://127.1/',
      'http://0x7f.0.0.1/',
      'http://127.255.0.9/',
      'http://localhost:3000/',
      'http://LOCALHOST/',
      'http://idp.localhost/',
      'http://[::1]:9000/',
      'http://[::ffff:127.0.0.1]/',
      'https://127.0.0.1/',
    ]) {
      assert.equal(isLoopbackUrl(url), true, url);
    }
  });

  it('rejects other hosts and unparseable input', () => {
    for (const url of [
      'http://10.0.0.1/',
      'http://128.0.0.1/',
      'http://localhost.example.com/',
      'http://127.0.0.1.nip.io/',
      'http://[::2]/',
      'http://[::ffff:10.0.0.1]/',
      'http://0.0.0.0/',
      'https://idp.example.org/',
      'not a url',
      '',
    ]) {
      assert.equal(isLoopbackUrl(url), false, url);
    }
  });
});
