import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectionUrlProblem, isLocalHost } from './connection-url.ts';

describe('connectionUrlProblem', () => {
  it('accepts loopback and Unix-socket servers without TLS, and any server that requires TLS', () => {
    for (const url of [
      'postgres://relay:pw@127.0.0.1:5432/registry',
      'postgres://relay:pw@localhost/registry',
      'postgresql://relay@[::1]:5432/registry',
      'postgres:///registry?host=/var/run/postgresql',
      'postgres://relay:pw@db.example.org/registry?sslmode=require',
      'postgres://relay:pw@10.1.2.3/registry?sslmode=verify-ca',
      'postgres://relay:pw@db.example.org/registry?sslmode=verify-full',
    ]) {
      assert.equal(connectionUrlProblem(url, 'DB_URL'), undefined, url);
    }
  });

  it('refuses a remote server without TLS, or with a mode that allows plain text', () => {
    for (const url of [
      'postgres://relay:pw@db.example.org/registry',
      'postgres://relay:pw@db.example.org/registry?sslmode=disable',
      'postgres://relay:pw@db.example.org/registry?sslmode=allow',
      'postgres://relay:pw@db.example.org/registry?sslmode=prefer',
      'postgres://relay:pw@127.0.0.1.nip.io/registry',
      'postgres://relay:pw@127.0.0.1/registry?host=db.example.org',
    ]) {
      assert.match(connectionUrlProblem(url, 'DB_URL') ?? '', /must require TLS/, url);
    }
  });

  it('refuses what is not a postgres URL, and never quotes the URL (it holds a password)', () => {
    for (const url of [
      'host=db dbname=registry password=hunter2',
      'mysql://u:hunter2@db/x',
      'https://u:hunter2@x',
    ]) {
      const problem = connectionUrlProblem(url, 'DB_URL') ?? '';
      assert.match(problem, /DB_URL must hold a postgres:\/\/ or postgresql:\/\/ URL/);
      assert.doesNotMatch(problem, /hunter2/);
    }
    assert.doesNotMatch(
      connectionUrlProblem('postgres://u:hunter2@db.example.org/x', 'DB_URL') ?? '',
      /hunter2|db\.example/,
    );
  });

  it('knows loopback spellings', () => {
    for (const host of ['localhost', 'api.localhost', '127.0.0.1', '127.5.6.7', '[::1]', '::1', '', '/tmp']) {
      assert.equal(isLocalHost(host), true, host);
    }
    for (const host of ['10.0.0.1', 'db', '127.0.0.1.example.org', '[::2]'])
      assert.equal(isLocalHost(host), false, host);
  });
});
