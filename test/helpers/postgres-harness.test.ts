import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { openTestDatabase } from './postgres-harness.ts';

for (const forcePglite of [false, true]) {
  test(`a test database${forcePglite ? ' (embedded PGlite)' : ''} is a real PostgreSQL of its own that accepts connections by URL`, async () => {
    const first = await openTestDatabase({ forcePglite });
    const second = await openTestDatabase({ forcePglite });
    try {
      await first.query('CREATE TABLE probe (id integer primary key)');
      await first.query('INSERT INTO probe VALUES (1), (2)');
      const client = new pg.Client({ connectionString: first.url });
      await client.connect();
      try {
        const { rows } = await client.query('SELECT count(*)::int AS n FROM probe');
        assert.equal(rows[0].n, 2);
      } finally {
        await client.end();
      }
      await assert.rejects(second.query('SELECT * FROM probe'), /does not exist/);
    } finally {
      await first.close();
      await second.close();
    }
  });
}
