// Reads of an entity over a live PostgreSQL table, successes and refusals (the live-only 502, 503 and 504 among them),
// each checked against the reader's own /openapi.json; and what that document promises of live answers (no ETag,
// no 304) beside a snapshot entity over the same table, which keeps them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { conformanceChecker, type OpenApiDocument } from '../helpers/openapi-conformance.ts';
import type { TestDatabase } from '../helpers/postgres-harness.ts';
import {
  databaseSwitch,
  OPERATOR_KEY,
  type PostgresRelay,
  startPostgresRelay,
} from '../helpers/postgres-relay.ts';
import { assertProblem } from './assert-problem.ts';
import {
  ID_AND_LABEL,
  ITEMS,
  liveAndSnapshot,
  liveDataset,
  openLiveTestDatabase,
  recordsOf,
} from './postgres-live-fixture.ts';

const LIVE = recordsOf('rows');
const SNAPSHOT = recordsOf('rows_copy');
const LIVE_RECORD = `${LIVE}/{id}`;

async function documentOf(relay: PostgresRelay): Promise<OpenApiDocument> {
  const answer = await relay.get('/openapi.json');
  assert.equal(answer.statusCode, 200, answer.body);
  return answer.json();
}

describe('live PostgreSQL entities against the runtime OpenAPI document', () => {
  let db: TestDatabase;
  before(async () => {
    db = await openLiveTestDatabase();
    await db.query('CREATE TABLE rows (id integer PRIMARY KEY, label text)');
    await db.query("INSERT INTO rows SELECT i, 'label ' || i FROM generate_series(1, 5) AS i");
  });
  after(() => db.close());

  it('describes pages (filters, cursors), records and refusals of the live entity as it answers them', async () => {
    const relay = await startPostgresRelay(liveAndSnapshot('rows', 'rows_copy', ID_AND_LABEL), db.url, {
      admin: true,
    });
    try {
      const checker = conformanceChecker(await documentOf(relay));
      const check = async (
        docPath: string,
        url: string,
        status: number,
        headers?: Record<string, string>,
      ) => {
        const answer = await relay.get(url, headers);
        assert.equal(answer.statusCode, status, `${url}: ${answer.body}`);
        return { answer, body: checker.check('GET', docPath, answer, `GET ${url}`) };
      };
      for (const query of [
        'id=2',
        'id.in=1,3',
        'id.gte=2&id.lte=4',
        'id.between=1,3&fields=label',
        'id=99',
      ]) {
        await check(LIVE, `${LIVE}?${query}`, 200);
      }
      const first = await check(LIVE, `${LIVE}?limit=2`, 200);
      assert.equal(first.answer.headers.etag, undefined, 'live pages carry no ETag');
      const { next_cursor: cursor } = (first.body as { pagination: { next_cursor: string } }).pagination;
      await check(LIVE, `${LIVE}?limit=2&cursor=${encodeURIComponent(cursor)}`, 200);
      await check(LIVE_RECORD, `${LIVE}/3`, 200);
      await check(LIVE_RECORD, `${LIVE}/3?fields=label`, 200);
      // Live answers never match a validator: the read runs and answers 200.
      await check(LIVE_RECORD, `${LIVE}/3`, 200, { 'if-none-match': '*' });
      await check(LIVE, `${LIVE}?limit=0`, 400);
      await check(LIVE, `${LIVE}?label=x`, 400);
      await check(LIVE, `${LIVE}?cursor=not-a-cursor`, 400);
      await check(LIVE_RECORD, `${LIVE}/3?id=3`, 400);
      await check(LIVE_RECORD, `${LIVE}/99`, 404);
      await check(LIVE, `${LIVE}?limit=1`, 401, { authorization: 'Bearer not-a-key' });
      // The operator key holds no scope of dataset `registry`.
      const denied = await relay.get(`${LIVE}/3`, { authorization: `Bearer ${OPERATOR_KEY}` });
      assertProblem(denied, 403, 'auth.scope_denied');
      checker.check('GET', LIVE_RECORD, denied);
    } finally {
      await relay.close();
    }
  });

  it('promises no ETag or 304 on live reads, keeps them on the snapshot, and lists the live-only problems', async () => {
    const relay = await startPostgresRelay(liveAndSnapshot('rows', 'rows_copy', ID_AND_LABEL), db.url);
    try {
      const { paths } = await documentOf(relay);
      for (const path of [LIVE, LIVE_RECORD]) {
        const { responses } = paths[path]?.get ?? assert.fail(`${path} documented`);
        assert.equal(responses['304'], undefined, `${path}: no 304`);
        assert.equal(responses['200']?.headers?.ETag, undefined, `${path}: no ETag`);
        for (const status of ['502', '503', '504']) assert.ok(responses[status], `${path}: ${status} listed`);
      }
      for (const path of [SNAPSHOT, `${SNAPSHOT}/{id}`]) {
        const { responses } = paths[path]?.get ?? assert.fail(`${path} documented`);
        assert.ok(responses['304'], `${path}: 304`);
        assert.ok(responses['200']?.headers?.ETag, `${path}: ETag`);
        assert.equal(responses['502'], undefined, `${path}: a snapshot read never answers 502`);
      }
      // The schema route answers from the catalogue, with an ETag, whatever the materialization.
      assert.ok(paths['/v1/datasets/registry/entities/rows/schema']?.get?.responses['304']);
    } finally {
      await relay.close();
    }
  });

  it('describes 502 datasource.row_invalid and 504 datasource.timeout of live reads', async () => {
    await db.query('CREATE TABLE measures (id integer PRIMARY KEY, value numeric)');
    await db.query("INSERT INTO measures VALUES (1, 2.5), (2, 'NaN')");
    await db.query(`CREATE FUNCTION slow_check() RETURNS boolean LANGUAGE sql AS $body$
      SELECT pg_sleep(3) IS NOT NULL $body$`);
    await db.query('CREATE VIEW slow_rows AS SELECT id, label FROM rows WHERE slow_check()');
    const invalid = await startPostgresRelay(
      liveDataset('measures', '{ name: id, type: integer }, { name: value, type: number }'),
      db.url,
    );
    try {
      const checker = conformanceChecker(await documentOf(invalid));
      for (const [docPath, url] of [
        [`${ITEMS}/{id}`, `${ITEMS}/2`],
        [ITEMS, ITEMS],
      ] as const) {
        const answer = await invalid.get(url);
        assertProblem(answer, 502, 'datasource.row_invalid');
        checker.check('GET', docPath, answer, `GET ${url}`);
      }
    } finally {
      await invalid.close();
    }
    const slow = await startPostgresRelay(
      liveDataset('slow_rows', ID_AND_LABEL, 'query_timeout: 200ms'),
      db.url,
    );
    try {
      const checker = conformanceChecker(await documentOf(slow));
      const answer = await slow.get(`${ITEMS}/1`);
      assertProblem(answer, 504, 'datasource.timeout');
      checker.check('GET', `${ITEMS}/{id}`, answer);
    } finally {
      await slow.close();
    }
  });

  it('describes 503 datasource.unavailable, with its Retry-After, when the database goes away', async () => {
    const database = await databaseSwitch(db.url);
    await database.open();
    const relay = await startPostgresRelay(liveDataset('rows', ID_AND_LABEL), database.url);
    try {
      const checker = conformanceChecker(await documentOf(relay));
      await database.cut();
      for (const [docPath, url] of [
        [`${ITEMS}/{id}`, `${ITEMS}/1`],
        [ITEMS, `${ITEMS}?limit=2`],
      ] as const) {
        const answer = await relay.get(url);
        assertProblem(answer, 503, 'datasource.unavailable');
        assert.ok(answer.headers['retry-after'], 'Retry-After sent');
        checker.check('GET', docPath, answer, `GET ${url}`);
      }
    } finally {
      await relay.close();
      await database.close();
    }
  });
});
