// PostgreSQL snapshot change tokens: mtime refresh, unreadable tokens, equality, and a digest per row.
import assert from 'node:assert/strict';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { eventually, startPostgresRelay } from '../helpers/postgres-relay.ts';
import { ACCESS, postgresSource } from './postgres-fixture.ts';
import { changeTokenSources, dataset, usePeopleDatabase } from './postgres-snapshot-fixture.ts';

describe('PostgreSQL snapshot sources', () => {
  const setup = usePeopleDatabase();

  it('refresh.mode mtime reloads the snapshot when the answer of change_token_sql changes', async () => {
    const { db } = setup;
    await db.query('CREATE TABLE counters (id integer PRIMARY KEY, value integer, updated_at timestamptz)');
    await db.query("INSERT INTO counters VALUES (1, 10, '2024-01-01T00:00:00Z')");
    const relay = await startPostgresRelay(
      dataset(
        `      - id: counters
        ${postgresSource({ table: 'counters' }, "change_token_sql: 'SELECT max(updated_at) FROM counters'")}
        refresh: { mode: mtime, interval: 1s }
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: value, type: integer }, { name: updated_at, type: timestamp }] }`,
        `      - { name: counters, table: counters, ${ACCESS} }`,
      ),
      db.url,
    );
    const COUNTER = '/v1/datasets/registry/entities/counters/records/1';
    try {
      const before = await relay.get(COUNTER);
      assert.equal(before.json().value, 10);
      await db.query("UPDATE counters SET value = 11, updated_at = '2024-01-02T00:00:00Z' WHERE id = 1");
      await eventually(
        async () => (await relay.get(COUNTER)).json().value === 11,
        'the refresh to load the change',
      );
      assert.notEqual((await relay.get(COUNTER)).headers.etag, before.headers.etag);
    } finally {
      await relay.close();
    }
  });

  it('a change token that cannot be read costs no reload on every poll: the table keeps being served', async () => {
    const { db } = setup;
    await db.query('CREATE TABLE ledgers (id integer PRIMARY KEY, value integer)');
    await db.query('INSERT INTO ledgers VALUES (1, 10)');
    // Accepted when the config loads, refused by the database on every run (division by zero).
    const failingToken = "change_token_sql: 'SELECT 1 / (count(*) - count(*)) FROM ledgers'";
    const relay = await startPostgresRelay(
      dataset(
        `      - id: ledgers
        ${postgresSource({ table: 'ledgers' }, failingToken)}
        refresh: { mode: mtime, interval: 1s }
        primary_key: id
        schema: { fields: [{ name: id, type: integer }, { name: value, type: integer }] }`,
        `      - { name: ledgers, table: ledgers, ${ACCESS} }`,
      ),
      db.url,
      { admin: true },
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 3500));
      const metrics = (await relay.admin('GET', '/metrics')).body;
      const reloads = metrics
        .split('\n')
        .filter((line) => line.startsWith('ambit_relay_reloads_total{') && line.includes('trigger="mtime"'))
        .map((line) => Number(line.split(' ').pop()))
        .reduce((sum, count) => sum + count, 0);
      assert.equal(reloads, 0, metrics);
      assert.equal((await relay.get('/v1/datasets/registry/entities/ledgers/records/1')).json().value, 10);
    } finally {
      await relay.close();
    }
  });

  it('change tokens are equal while the data is unchanged and differ after a change', async () => {
    const { db } = setup;
    const { sources, table } = changeTokenSources(db.url, 'SELECT count(*), max(note) FROM people');
    try {
      const first = await sources.changeToken(table);
      assert.equal(await sources.changeToken(table), first);
      await db.query("UPDATE people SET note = 'zz last' WHERE person_id = 'p002'");
      assert.notEqual(await sources.changeToken(table), first);
    } finally {
      await db.query("UPDATE people SET note = 'note 2' WHERE person_id = 'p002'");
      await sources.close();
    }
  });

  it('a change token is read as a digest per row: a huge answer does not cross the wire', async () => {
    const { db } = setup;
    // Through a proxy that counts the bytes the server sends: read whole, this value of 6 MB would be nearly all of them
    // (and one past 512 MiB would end the process in the driver).
    const proxy = await byteCountingProxy(db.url);
    const { sources, table } = changeTokenSources(proxy.url, 'SELECT repeat(max(note), 1000000) FROM people');
    try {
      const first = await sources.changeToken(table);
      assert.equal(await sources.changeToken(table), first);
      assert.ok(proxy.received() < 64 * 1024, `${proxy.received()} bytes from the server`);
      await db.query("UPDATE people SET note = 'zz last' WHERE person_id = 'p002'");
      assert.notEqual(await sources.changeToken(table), first);
    } finally {
      await db.query("UPDATE people SET note = 'note 2' WHERE person_id = 'p002'");
      await sources.close();
      await proxy.close();
    }
  });
});

/** A TCP proxy in front of the database at `url`, counting the bytes the server sends. */
async function byteCountingProxy(
  url: string,
): Promise<{ url: string; received(): number; close(): Promise<void> }> {
  const target = new URL(url);
  let received = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    upstream.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: proxied.toString(),
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
