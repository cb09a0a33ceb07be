import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { connectionUrlProblem, driverUrl, isLocalHost } from './connection-url.ts';

describe('connectionUrlProblem', () => {
  it('accepts loopback and Unix-socket servers without TLS, and any server that requires TLS', () => {
    for (const url of [
      'postgres://relay:pw@127.0.0.1:5432/registry',
      'postgres://relay:pw@localhost/registry',
      'postgresql://relay@[::1]:5432/registry',
      'postgres:///registry?host=/var/run/postgresql',
      'postgres://relay:pw@%2Fvar%2Frun%2Fpostgresql/registry',
      'postgres://relay:pw@LOCALHOST:5432/registry',
      'postgres://relay:pw@127.0.0.1/registry?sslmode=disable',
      'postgres://relay:pw@db.example.org/registry?sslmode=require&uselibpqcompat=true',
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
      // Only `localhost` itself is loopback: a name under it may resolve, through DNS, anywhere.
      'postgres://relay:pw@api.localhost/registry',
      'postgres://relay:pw@localhost./registry',
      // Judged as decoded, as the driver decodes it.
      'postgres://relay:pw@127.0.0.1%2Eexample.org/registry',
      // The driver lets an empty `host` parameter fall back to the authority.
      'postgres://relay:pw@db.example.org/registry?host=&sslmode=disable',
      // Not addresses, only names shaped like them: resolved through DNS (and its search domains) to anywhere.
      'postgres://relay:pw@127.0.0.999/registry',
      'postgres://relay:pw@127.0.0.099/registry',
      'postgres://relay:pw@localhost/registry?host=::ffff:127.0.0.999',
      'postgres://relay:pw@localhost/registry?host=::ffff:127.db.example.org',
      'postgres://relay:pw@localhost/registry?host=fe80::1%25eth0',
    ]) {
      assert.match(connectionUrlProblem(url, 'DB_URL') ?? '', /must require TLS/, url);
    }
  });

  it('refuses a repeated parameter, whichever copy the driver would use', () => {
    for (const url of [
      'postgres://relay:pw@192.0.2.2/registry?sslmode=require&sslmode=disable',
      'postgres://relay:pw@192.0.2.2/registry?sslmode=disable&sslmode=require',
      'postgres://relay:pw@localhost/registry?host=/var/run/postgresql&host=192.0.2.2',
      'postgres://relay:pw@localhost/registry?host=/tmp&host=/var/run/postgresql',
      // An encoded name is the same name.
      'postgres://relay:pw@192.0.2.2/registry?sslmode=require&ssl%6Dode=disable',
    ]) {
      assert.match(connectionUrlProblem(url, 'DB_URL') ?? '', /repeats the connection parameter/, url);
    }
    assert.match(
      connectionUrlProblem('postgres://u@localhost/x?host=/tmp&host=/tmp', 'DB_URL') ?? '',
      /parameter `host`/,
    );
    assert.doesNotMatch(
      connectionUrlProblem('postgres://u@localhost/x?hunter-2=1&hunter-2=2', 'DB_URL') ?? '',
      /hunter/,
    );
  });

  it('refuses hostaddr, several hosts and an empty host, whose server the URL does not say', () => {
    const cases: [string, RegExp][] = [
      ['postgres://relay:pw@localhost/registry?hostaddr=192.0.2.2', /hostaddr/],
      ['postgres://relay:pw@db.example.org/registry?hostaddr=127.0.0.1&sslmode=require', /hostaddr/],
      ['postgres://relay:pw@localhost,db.example.org/registry', /several hosts/],
      ['postgres://relay:pw@localhost/registry?host=/tmp,db.example.org', /several hosts/],
      ['postgres://relay:pw@localhost/registry?host=localhost,127.0.0.1', /several hosts/],
      // The driver would take PGHOST from the environment, then localhost.
      ['postgres:///registry', /must name the server's host/],
      ['postgres:///registry?host=', /must name the server's host/],
      ['postgres:///registry?sslmode=require', /must name the server's host/],
      // libpq's spelling of a socket with a user: the URL has no host for the relay to read.
      ['postgres://reader:pw@/registry?host=/var/run/postgresql', /must name the server's host/],
      ['postgresql://reader@:5432/registry', /must name the server's host/],
    ];
    for (const [url, reason] of cases) assert.match(connectionUrlProblem(url, 'DB_URL') ?? '', reason, url);
  });

  it('refuses certificate files the driver cannot read, without naming them', () => {
    const problem = connectionUrlProblem(
      'postgres://u:pw@db.example.org/x?sslmode=verify-full&sslrootcert=/nonexistent/secret-ca.pem',
      'DB_URL',
    );
    assert.match(problem ?? '', /certificate or key file it names cannot be read/);
    assert.doesNotMatch(problem ?? '', /secret-ca|nonexistent|pw/);
    assert.match(
      connectionUrlProblem('postgres://u@db.example.org/x?sslmode=verify-ca&uselibpqcompat=true', 'DB_URL') ??
        '',
      /verify-ca needs sslrootcert/,
    );
  });

  it('refuses a TLS mode no client knows, and says which ones there are', () => {
    for (const url of [
      'postgres://relay:pw@127.0.0.1/registry?sslmode=bogus',
      'postgres://relay:pw@127.0.0.1/registry?sslmode=',
      'postgres://relay:pw@db.example.org/registry?sslmode=REQUIRE',
    ]) {
      assert.match(
        connectionUrlProblem(url, 'DB_URL') ?? '',
        /^DB_URL sets an unknown sslmode: use one of disable, allow, prefer, require, verify-ca, verify-full, no-verify$/,
        url,
      );
    }
    assert.equal(
      connectionUrlProblem('postgres://relay:pw@127.0.0.1/r?sslmode=no-verify', 'DB_URL'),
      undefined,
    );
  });

  it('says a port out of range is the cause, not the scheme', () => {
    for (const url of [
      'postgres://relay:hunter2@db.example.org:99999/registry',
      'postgres://relay:hunter2@[::1]:65536/registry',
      'postgresql://127.0.0.1:123456',
    ]) {
      const problem = connectionUrlProblem(url, 'DB_URL') ?? '';
      assert.equal(problem, 'DB_URL names a port beyond 65535', url);
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

  it('refuses a password whose special characters are not percent-encoded, which would name another host', () => {
    // Read as host `9fQ` (then `b`, `u`): a piece of the password the driver's errors and the logs would quote.
    for (const url of [
      'postgres://verifier:k@9fQ#zL@127.0.0.1:5432/state',
      'postgres://u:a@b/cd@127.0.0.1/db',
      'postgres://u:a@b?cd@127.0.0.1/db',
      'postgres://u:12#34@127.0.0.1/db',
    ]) {
      const problem = connectionUrlProblem(url, 'DB_URL', { remoteTls: false }) ?? '';
      assert.match(problem, /DB_URL .*percent-encode/, url);
      assert.doesNotMatch(problem, /9fQ|zL|cd|34/, url);
    }
    // Encoded, or an `@` only in the password (the last one ends it), it is what it says.
    for (const url of [
      'postgres://verifier:k%409fQ%23zL@127.0.0.1:5432/state',
      'postgres://u:p@ss@127.0.0.1/db',
    ]) {
      assert.equal(connectionUrlProblem(url, 'DB_URL', { remoteTls: false }), undefined, url);
    }
  });

  it('names percent-encoding when an unencoded character leaves no URL at all', () => {
    // `pa#ss`: the URL reader takes `user:pa` as host and port and refuses it; the URL is still postgres://.
    for (const url of [
      'postgres://user:pa#ss@db.example.org:5432/registry?sslmode=require',
      'postgresql://u:p#w@localhost/db',
      'postgres://u:a?b@127.0.0.1/db',
      'postgres://u:a/b@127.0.0.1/db',
    ]) {
      const problem = connectionUrlProblem(url, 'DB_URL') ?? '';
      assert.match(problem, /DB_URL .*percent-encode/, url);
      assert.doesNotMatch(problem, /pa#ss|p#w|a\?b|a\/b|db\.example/, url);
    }
  });

  it('hands the driver the TLS mode it applies, so that it prints no warning about the mode given', () => {
    for (const mode of ['require', 'verify-ca', 'prefer']) {
      const given = `postgres://u:p@db.example:5432/x?sslmode=${mode}&application_name=a`;
      assert.equal(
        driverUrl(given),
        'postgres://u:p@db.example:5432/x?sslmode=verify-full&application_name=a',
      );
    }
    // What the driver reads in another way is left as it is.
    for (const url of [
      'postgres://u@db.example/x?sslmode=verify-full',
      'postgres://u@db.example/x?sslmode=disable',
      'postgres://u@localhost/x',
      'postgres://u@db.example/x?uselibpqcompat=true&sslmode=require',
    ]) {
      assert.equal(driverUrl(url), url);
    }
    const script = `
      import pg from 'pg';
      import { connectionUrlProblem, driverUrl } from './src/platform/postgres/connection-url.ts';
      const url = 'postgres://u:p@db.example:5432/x?sslmode=require';
      if (connectionUrlProblem(url, 'DB') !== undefined) process.exit(3);
      new pg.Client({ connectionString: driverUrl(url) });
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /WARNING/);
  });

  it('knows loopback spellings', () => {
    for (const host of [
      'localhost',
      '127.0.0.1',
      '127.5.6.7',
      '[::1]',
      '::1',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '/tmp',
    ]) {
      assert.equal(isLocalHost(host), true, host);
    }
    for (const host of [
      '10.0.0.1',
      'db',
      '127.0.0.1.example.org',
      '[::2]',
      'api.localhost',
      'localhost.',
      '',
      '127.0.0.256',
      '127.0.0.099',
      '::ffff:127.0.0.999',
      '::ffff:127.db.example.org',
      '::ffff:7f00:1.example.org',
      '::1%lo',
    ])
      assert.equal(isLocalHost(host), false, host);
  });
});
