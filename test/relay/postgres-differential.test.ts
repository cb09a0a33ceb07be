// Differential test: one PostgreSQL table served as a snapshot and live must answer every filter a caller can send
// with the same rows in the same order, the same pages (has_more, next cursor, Link) and the same errors. Queries
// are generated (every operator on every column type with well-formed and malformed values, then seeded random
// combinations with projections and limits, walked page by page); differences are collected and reported together.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FieldType } from '../../src/relay/config/schema.ts';
import { parseFilterValue } from '../../src/relay/store/coerce-cell.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { type PostgresRelay, startPostgresRelay } from '../helpers/postgres-relay.ts';
import {
  COLUMNS,
  createDifferentialTable,
  differentialDataset,
  FIELD_TYPES,
  keyOf,
  ROW_COUNT,
  selectedKeys,
  VALUES,
} from './postgres-differential-fixture.ts';

const SNAP = '/v1/datasets/registry/entities/snap/records';
const LIVE = '/v1/datasets/registry/entities/live/records';
const OPS = ['eq', 'in', 'gte', 'lte', 'between'] as const;
const MAX_PAGES = ROW_COUNT + 2;

/** A seeded generator (mulberry32): the same queries on every run. */
function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  return { next, pick };
}

const encode = (value: string) => encodeURIComponent(value);

interface Answer {
  readonly status: number;
  readonly code?: string;
  readonly pages?: readonly { data: unknown; hasMore: boolean; cursor: boolean; link: boolean }[];
}

describe('snapshot and live answers to the same query over the same PostgreSQL table', () => {
  let db: TestDatabase;
  let relay: PostgresRelay;
  before(async () => {
    db = await openTestDatabase();
    await createDifferentialTable(db, 'diff');
    relay = await startPostgresRelay(differentialDataset('diff'), db.url);
  });
  after(async () => {
    await relay?.close();
    await db?.close();
  });

  /** The answer to `query`, following next cursors to the end when `walk` (limits cycling through `limits`). */
  async function answer(
    path: string,
    query: string,
    walk: boolean,
    limits: readonly number[],
  ): Promise<Answer> {
    const pages: { data: unknown; hasMore: boolean; cursor: boolean; link: boolean }[] = [];
    let url = `${path}?${query}`;
    for (let page = 0; page < MAX_PAGES; page++) {
      const response = await relay.get(url);
      if (response.statusCode !== 200) {
        const body = response.json();
        return { status: response.statusCode, code: body.code, ...(page > 0 ? { pages } : {}) };
      }
      const body = response.json();
      const cursor: string | undefined = body.pagination.next_cursor;
      pages.push({
        data: body.data,
        hasMore: body.pagination.has_more,
        cursor: cursor !== undefined,
        link: response.headers.link !== undefined,
      });
      if (!walk || cursor === undefined) break;
      const limit = limits[(page + 1) % limits.length];
      const rest = query.replace(/(^|&)limit=\d+/, '');
      url = `${path}?${rest}${rest === '' ? '' : '&'}limit=${limit}&cursor=${encode(cursor)}`;
    }
    return { status: 200, pages };
  }

  /** Runs every query on both entities; returns the queries whose answers differ (or that failed with a 5xx). */
  async function differences(queries: readonly string[], walk = false, limits = [3, 5, 1]) {
    const found: string[] = [];
    for (const query of queries) {
      const snap = await answer(SNAP, query, walk, limits);
      const live = await answer(LIVE, query, walk, limits);
      const shown = decodeURIComponent(query);
      if (snap.status >= 500 || live.status >= 500) {
        found.push(
          `${shown}: snapshot ${snap.status} ${snap.code ?? ''}, live ${live.status} ${live.code ?? ''}`,
        );
        continue;
      }
      try {
        assert.deepEqual(live, snap);
      } catch {
        found.push(
          `${shown}:\n  snapshot ${JSON.stringify(snap).slice(0, 400)}\n  live     ${JSON.stringify(live).slice(0, 400)}`,
        );
      }
    }
    return found;
  }

  const report = (found: readonly string[]) =>
    assert.deepEqual(found, [], `${found.length} differences:\n${found.slice(0, 40).join('\n')}`);

  it('serves the same records, in the same order, unfiltered', async () => {
    const snap = await relay.get(`${SNAP}?limit=100`);
    const live = await relay.get(`${LIVE}?limit=100`);
    assert.equal(snap.statusCode, 200, snap.body);
    assert.equal(live.body, snap.body);
    const keys = snap.json().data.map((row: { id: string }) => row.id);
    const expected = Array.from({ length: ROW_COUNT }, (_, row) => keyOf(row)).sort((x, y) =>
      Buffer.compare(Buffer.from(x), Buffer.from(y)),
    );
    assert.deepEqual(keys, expected);
    // Every record by its key, and ids no record has (case, spaces, NUL, a prefix), projected or not.
    const ids = [...keys, ...['a0 ', ' a0', 'A0', 'a0\0', '\u{1f600}', 'a', '']];
    for (const id of ids) {
      for (const suffix of ['', '?fields=s,ts', '?fields=id']) {
        const path = `/${encode(id)}${suffix}`;
        const live = await relay.get(`${LIVE}${path}`);
        const snapshot = await relay.get(`${SNAP}${path}`);
        assert.equal(live.statusCode, snapshot.statusCode, path);
        if (snapshot.statusCode === 200) assert.equal(live.body, snapshot.body, path);
        else assert.equal(live.json().code, snapshot.json().code, path);
      }
    }
  });

  for (const [field, type] of FIELD_TYPES) {
    it(`every operator on \`${field}\` (${type}), with every value a caller might send`, async () => {
      const values = VALUES[type] as readonly string[];
      const random = seeded(field.length * 7919 + type.length);
      const queries: string[] = [];
      // Single filters, with the operator and raw value the independent selection needs.
      const single: [string, string, string][] = [];
      for (const value of values) {
        for (const op of ['', '.eq', '.gte', '.lte', '.in']) {
          single.push([`${field}${op}=${encode(value)}`, op === '' ? 'eq' : op.slice(1), value]);
        }
      }
      for (let i = 0; i < 40; i++) {
        const list = Array.from({ length: 1 + Math.floor(random.next() * 4) }, () => random.pick(values));
        single.push([`${field}.in=${list.map(encode).join(',')}`, 'in', list.join(',')]);
        const [lower, upper] = [random.pick(values), random.pick(values)];
        single.push([`${field}.between=${encode(lower)},${encode(upper)}`, 'between', `${lower},${upper}`]);
        queries.push(`${field}.gte=${encode(lower)}&${field}.lte=${encode(upper)}`);
      }
      queries.push(...single.map(([query]) => query));
      report(await differences(queries.map((query) => `${query}&limit=100`)));
      // Neither execution selects a row outside the filter, nor leaves one out.
      const records = (await relay.get(`${SNAP}?limit=100`)).json().data;
      const parse = (text: string) => {
        const parsed = parseFilterValue(text, type as FieldType);
        return parsed.ok ? parsed.value : undefined;
      };
      const wrong: string[] = [];
      // Operators that selected rows here: were every filter refused on both sides, the answers would agree.
      const selecting = new Set<string>();
      for (const [query, op, raw] of single) {
        const response = await relay.get(`${LIVE}?${query}&limit=100`);
        if (response.statusCode !== 200) continue;
        const expected = selectedKeys(records, field, op, raw, parse);
        const ordered = (keys: string[]) => JSON.stringify(keys);
        const keys = response.json().data.map((row: { id: string }) => row.id);
        if (expected === undefined || ordered(keys) !== ordered(expected)) {
          wrong.push(`${decodeURIComponent(query)}: ${ordered(keys)}, expected ${ordered(expected ?? [])}`);
        }
        if (keys.length > 0) selecting.add(op);
      }
      report(wrong);
      assert.deepEqual([...selecting].sort(), [...OPS].sort(), 'each operator selects rows for some value');
    });
  }

  it('random combinations of filters, projections and limits, walked page by page with changing limits', async () => {
    const random = seeded(20240229);
    const fields = [...FIELD_TYPES.keys()];
    const queries: string[] = [];
    for (let i = 0; i < 250; i++) {
      const parts: string[] = [];
      const count = 1 + Math.floor(random.next() * 3);
      for (let f = 0; f < count; f++) {
        const field = random.pick(fields);
        const values = VALUES[FIELD_TYPES.get(field) as string] as readonly string[];
        const op = random.pick(OPS);
        const take = op === 'in' ? 1 + Math.floor(random.next() * 3) : op === 'between' ? 2 : 1;
        const list = Array.from({ length: take }, () => encode(random.pick(values))).join(',');
        parts.push(`${field}${op === 'eq' ? '' : `.${op}`}=${list}`);
      }
      if (random.next() < 0.4) {
        const projected = Array.from({ length: 1 + Math.floor(random.next() * 3) }, () =>
          random.pick(fields),
        );
        parts.push(`fields=${projected.join(',')}`);
      }
      parts.push(`limit=${1 + Math.floor(random.next() * 4)}`);
      queries.push(parts.join('&'));
    }
    // Unfiltered walks, projected or not.
    queries.push('limit=1', 'limit=7&fields=s', 'limit=2&fields=dbl,num,bn', 'b=true&limit=2&fields=ts,tl,d');
    report(await differences(queries, true));
  });

  it('the same errors for the same malformed requests', async () => {
    const many = (count: number) => Array.from({ length: count }, (_, i) => `v${i}`).join(',');
    const queries = [
      `s.in=${many(100)}`,
      `s.in=${many(101)}`,
      `s.in=${many(100)},v0`,
      's.in=,,,',
      's.in=a,,b',
      's.between=a',
      's.between=a,b,c',
      's.between=b,a',
      'dbl.between=1,-1',
      'dbl.between=-0,0',
      's=a&s.eq=a',
      's=a&s=b',
      's.like=a',
      's.eq.eq=a',
      '.eq=a',
      'S=a',
      'limit=0',
      'limit=101',
      'limit=1.5',
      'limit=+5',
      'limit= 5',
      'limit=',
      'limit=5&limit=6',
      'fields=',
      'fields=nope',
      'fields=s,s',
      'cursor=',
      'cursor=abc.def',
      'expand=x',
      ...COLUMNS.map(([name]) => `${name}=`),
      ...COLUMNS.map(([name]) => `${name}.between=,`),
      Array.from({ length: 21 }, (_, i) => `${i % 2 ? 'b' : 's'}${i < 2 ? '' : `.in`}=x${i}`).join('&'),
    ];
    report(await differences(queries));
  });

  it('a cursor from one entity, or from another query, is refused alike', async () => {
    const first = await relay.get(`${SNAP}?b=true&limit=2`);
    const liveFirst = await relay.get(`${LIVE}?b=true&limit=2`);
    for (const [cursor, other] of [
      [first.json().pagination.next_cursor, LIVE],
      [liveFirst.json().pagination.next_cursor, SNAP],
    ]) {
      const response = await relay.get(`${other}?b=true&limit=2&cursor=${encode(cursor)}`);
      assert.equal(response.json().code, 'pagination.cursor_invalidated');
    }
    for (const path of [SNAP, LIVE]) {
      const cursor = (await relay.get(`${path}?b=true&limit=2`)).json().pagination.next_cursor;
      // The same filter spelled otherwise is the same query; another filter is not.
      assert.equal((await relay.get(`${path}?b=TRUE&limit=3&cursor=${encode(cursor)}`)).statusCode, 200);
      const other = await relay.get(`${path}?b=false&limit=2&cursor=${encode(cursor)}`);
      assert.equal(other.json().code, 'pagination.cursor_invalidated');
    }
  });
});
