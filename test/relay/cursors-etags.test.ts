// Cursor binding and validation, and ETag / If-None-Match behaviour, across one and several relay processes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import {
  type Persona,
  PURPOSE,
  startDemoRelay,
  TEST_KEYS,
  type TestRelay,
} from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { type DemoData, readDemoData } from './read-demo-data.ts';
import { withCursor } from './walk-pages.ts';

const SP = '/v1/datasets/social_protection/entities';
const HOUSEHOLDS = `${SP}/households/records`;
const PAYMENTS = `${SP}/payments/records`;
const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';
const ETAG = /^"sha256:[0-9a-f]{64}"$/;

describe('cursors and ETags', () => {
  /** The relay under test. */
  let relay: TestRelay;
  /** Same config and cursor secret: a replica. */
  let replica: TestRelay;
  /** Same config, another cursor secret. */
  let otherSecret: TestRelay;
  /** Same cursor secret, but the households table is declared differently, so its generation differs. */
  let reloaded: TestRelay;
  let demo: DemoData;
  before(async () => {
    [relay, replica, otherSecret, reloaded, demo] = await Promise.all([
      startDemoRelay(),
      startDemoRelay(),
      startDemoRelay({ env: { AMBIT_DEMO_CURSOR_SECRET: 'another-cursor-secret-0123456789abcdef' } }),
      startDemoRelay({
        edit: (text) =>
          text.replace(
            '{ name: case_notes, type: string, sensitive: true }',
            '{ name: case_notes, type: string }',
          ),
      }),
      readDemoData(),
    ]);
  });
  after(() => Promise.all([relay, replica, otherSecret, reloaded].map((r) => r.close())));

  async function page(
    path: string,
    options: { on?: TestRelay; as?: Persona; headers?: Record<string, string> } = {},
  ): Promise<{ response: Response; ids: string[]; cursor: string | undefined }> {
    const response = await (options.on ?? relay).get(path, {
      as: options.as ?? 'caseworker',
      ...(options.headers ? { headers: options.headers } : {}),
    });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    const body = response.json();
    const ids = body.data.map((row: Record<string, string>) => Object.values(row)[0]);
    return { response, ids, cursor: body.pagination.next_cursor };
  }

  async function cursorOf(path: string, options: Parameters<typeof page>[1] = {}): Promise<string> {
    const { cursor } = await page(path, options);
    assert.ok(cursor, `${path} has a next page`);
    return cursor;
  }

  const householdIds = () => demo.households.map((row) => row.household_id as string);

  describe('cursors', () => {
    it('continue the same query, and limit may change between pages', async () => {
      const all = householdIds();
      const first = await page(`${HOUSEHOLDS}?limit=10`);
      assert.deepEqual(first.ids, all.slice(0, 10));
      assert.ok(first.cursor);
      const wider = await page(`${HOUSEHOLDS}?limit=25&cursor=${first.cursor}`);
      assert.deepEqual(wider.ids, all.slice(10, 35));
      const narrower = await page(`${HOUSEHOLDS}?limit=7&cursor=${first.cursor}`);
      assert.deepEqual(narrower.ids, all.slice(10, 17));
      const defaulted = await page(`${HOUSEHOLDS}?cursor=${first.cursor}`);
      assert.deepEqual(defaulted.ids, all.slice(10, 35));
    });

    it('are opaque and URL-safe', async () => {
      const cursor = await cursorOf(`${HOUSEHOLDS}?district=lakeside&limit=2`);
      assert.match(cursor, /^[A-Za-z0-9_.-]+$/);
      assert.ok(!cursor.includes('lakeside') && !cursor.includes('hh-'));
    });

    it('are bound to the filters (an equal `.eq` spelling is the same query)', async () => {
      const cursor = await cursorOf(`${HOUSEHOLDS}?district=lakeside&limit=5`);
      for (const query of [
        'district=highmoor',
        '',
        'district=lakeside&poverty_band=low',
        'district.in=lakeside',
      ]) {
        assertProblem(
          await relay.get(`${HOUSEHOLDS}?${query}&limit=5&cursor=${cursor}`, { as: 'caseworker' }),
          400,
          'pagination.cursor_invalidated',
        );
      }
      const lakeside = demo.households
        .filter((row) => row.district === 'lakeside')
        .map((row) => row.household_id);
      const next = await page(`${HOUSEHOLDS}?district.eq=lakeside&limit=5&cursor=${cursor}`);
      assert.deepEqual(next.ids, lakeside.slice(5, 10));
    });

    it('are bound to the projection and the expansions', async () => {
      const projected = await cursorOf(`${HOUSEHOLDS}?fields=household_id&limit=5`);
      for (const query of ['', 'fields=district', 'fields=household_id,district']) {
        assertProblem(
          await relay.get(`${HOUSEHOLDS}?${query}&cursor=${projected}`, { as: 'caseworker' }),
          400,
          'pagination.cursor_invalidated',
        );
      }
      const expanded = await cursorOf(`${HOUSEHOLDS}?expand=members&limit=5`);
      for (const query of ['', 'expand=payments', 'expand=members,payments']) {
        assertProblem(
          await relay.get(`${HOUSEHOLDS}?${query}&cursor=${expanded}`, { as: 'caseworker' }),
          400,
          'pagination.cursor_invalidated',
        );
      }
      const again = await page(`${HOUSEHOLDS}?expand=members&limit=5&cursor=${expanded}`);
      assert.deepEqual(again.ids, householdIds().slice(5, 10));
    });

    it('are bound to the purpose', async () => {
      const headers = { 'data-purpose': PURPOSE };
      const cursor = await cursorOf(`${HOUSEHOLDS}?limit=5`, { headers });
      const others: Record<string, string>[] = [
        {},
        { 'data-purpose': `${PURPOSE}/other` },
        { 'data-purpose': ' ' },
      ];
      for (const other of others) {
        assertProblem(
          await relay.get(`${HOUSEHOLDS}?limit=5&cursor=${cursor}`, { as: 'caseworker', headers: other }),
          400,
          'pagination.cursor_invalidated',
        );
      }
      // The purpose is compared trimmed, as it is validated.
      const next = await page(`${HOUSEHOLDS}?limit=5&cursor=${cursor}`, {
        headers: { 'data-purpose': ` ${PURPOSE} ` },
      });
      assert.deepEqual(next.ids, householdIds().slice(5, 10));
    });

    it('are bound to the credential, whichever header carries it', async () => {
      const cursor = await cursorOf(`${HOUSEHOLDS}?limit=5`);
      assertProblem(
        await relay.get(`${HOUSEHOLDS}?limit=5&cursor=${cursor}`, { as: 'verifier_service' }),
        400,
        'pagination.cursor_invalidated',
      );
      const viaApiKeyHeader = await relay.get(`${HOUSEHOLDS}?limit=5&cursor=${cursor}`, {
        headers: { 'x-api-key': TEST_KEYS.caseworker },
      });
      assert.equal(viaApiKeyHeader.statusCode, 200, viaApiKeyHeader.body);
    });

    it('are bound to the entity and the relationship', async () => {
      const payments = await cursorOf(`${PAYMENTS}?limit=5`);
      assertProblem(
        await relay.get(`${HOUSEHOLDS}?limit=5&cursor=${payments}`, { as: 'caseworker' }),
        400,
        'pagination.cursor_invalidated',
      );
      const related = await cursorOf(`${HOUSEHOLDS}/hh-1033/relationships/members?limit=3`);
      for (const path of [
        `${SP}/members/records`,
        `${HOUSEHOLDS}/hh-1116/relationships/members`,
        `${HOUSEHOLDS}/hh-1033/relationships/payments`,
      ]) {
        assertProblem(
          await relay.get(`${path}?limit=3&cursor=${related}`, { as: 'caseworker' }),
          400,
          'pagination.cursor_invalidated',
        );
      }
      const members = await cursorOf(`${SP}/members/records?limit=3`);
      assertProblem(
        await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/members?limit=3&cursor=${members}`, {
          as: 'caseworker',
        }),
        400,
        'pagination.cursor_invalidated',
      );
    });

    it('reject tampered or garbage cursors as malformed', async () => {
      const cursor = await cursorOf(`${HOUSEHOLDS}?limit=5`);
      const [body = '', signature = ''] = cursor.split('.');
      const flip = (text: string, at: number) =>
        text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
      const bad = [
        'abc',
        'a.b.c',
        `${body}.`,
        `.${signature}`,
        `${flip(body, 3)}.${signature}`,
        `${body}.${flip(signature, 0)}`,
        `${body}.${signature.slice(0, -2)}`,
        `${body}.${signature}.${signature}`,
        `${body}x.${signature}`,
        'x'.repeat(600),
        `${Buffer.from('{"i":"x","g":"y","p":1}').toString('base64url')}.${signature}`,
      ];
      for (const value of bad) {
        assertProblem(
          await relay.get(`${HOUSEHOLDS}?limit=5&cursor=${encodeURIComponent(value)}`, { as: 'caseworker' }),
          400,
          'pagination.cursor_malformed',
        );
      }
      assertProblem(
        await relay.get(`${HOUSEHOLDS}?cursor=`, { as: 'caseworker' }),
        400,
        'pagination.cursor_malformed',
      );
      assertProblem(
        await relay.get(`${HOUSEHOLDS}/hh-1033/relationships/members?cursor=garbage`, { as: 'caseworker' }),
        400,
        'pagination.cursor_malformed',
      );
      assertProblem(
        await relay.get(`${HOUSEHOLDS}?cursor=${cursor}&cursor=${cursor}`, { as: 'caseworker' }),
        400,
        'filter.invalid_value',
      );
    });

    it('are accepted by another relay with the same config and secret, and by no other', async () => {
      const payments = demo.payments.map((row) => row.payment_id);
      const seen: string[] = [];
      let path: string | undefined = `${PAYMENTS}?limit=40`;
      let turn = 0;
      while (path) {
        // Alternate between the two processes on every page.
        const result = await page(path, { on: turn++ % 2 === 0 ? relay : replica });
        seen.push(...result.ids);
        path = result.cursor ? withCursor(path, result.cursor) : undefined;
      }
      assert.deepEqual(seen, payments);

      const cursor = await cursorOf(`${PAYMENTS}?limit=40`);
      assertProblem(
        await otherSecret.get(`${PAYMENTS}?limit=40&cursor=${cursor}`, { as: 'caseworker' }),
        400,
        'pagination.cursor_malformed',
      );
    });

    it('are invalidated when their table comes from another data generation', async () => {
      const households = await cursorOf(`${HOUSEHOLDS}?limit=5`);
      assertProblem(
        await reloaded.get(`${HOUSEHOLDS}?limit=5&cursor=${households}`, { as: 'caseworker' }),
        400,
        'pagination.cursor_invalidated',
      );
      // The payments table is unchanged there, so its cursors still hold.
      const payments = await cursorOf(`${PAYMENTS}?limit=5`);
      const next = await page(`${PAYMENTS}?limit=5&cursor=${payments}`, { on: reloaded });
      assert.deepEqual(
        next.ids,
        demo.payments.slice(5, 10).map((row) => row.payment_id),
      );
      // An expanded page shows rows of the expansion's target too, so its cursor is bound to their generation.
      const expanded = `${PAYMENTS}?limit=5&expand=household`;
      const expandedCursor = await cursorOf(expanded);
      assert.deepEqual(
        (await page(`${expanded}&cursor=${expandedCursor}`, { on: replica })).ids,
        demo.payments.slice(5, 10).map((row) => row.payment_id),
      );
      assertProblem(
        await reloaded.get(`${expanded}&cursor=${expandedCursor}`, { as: 'caseworker' }),
        400,
        'pagination.cursor_invalidated',
      );
      const related = await cursorOf(`${HOUSEHOLDS}/hh-1033/relationships/members?limit=3`);
      assertProblem(
        await reloaded.get(`${HOUSEHOLDS}/hh-1033/relationships/members?limit=3&cursor=${related}`, {
          as: 'caseworker',
        }),
        400,
        'pagination.cursor_invalidated',
      );
    });
  });

  describe('ETags', () => {
    const resources: [string, string, Persona, Record<string, string>][] = [
      ['schema', `${SP}/households/schema`, 'caseworker', {}],
      ['collection', `${HOUSEHOLDS}?district=dunmere`, 'caseworker', {}],
      ['record', `${HOUSEHOLDS}/hh-1033`, 'caseworker', {}],
      ['person record', `${PERSONS}/per-10001`, 'caseworker', { 'data-purpose': PURPOSE }],
      ['has_many relationship', `${HOUSEHOLDS}/hh-1033/relationships/members`, 'caseworker', {}],
      ['belongs_to relationship', `${SP}/members/records/mem-5001/relationships/household`, 'caseworker', {}],
      [
        'facilities collection',
        '/v1/datasets/health_facilities/entities/facilities/records',
        'health_planner',
        {},
      ],
    ];

    async function etagOf(
      path: string,
      as: Persona = 'caseworker',
      headers: Record<string, string> = {},
      on = relay,
    ) {
      const response = await on.get(path, { as, headers });
      assert.equal(response.statusCode, 200, response.body);
      const etag = response.headers.etag as string;
      assert.match(etag, ETAG, path);
      return etag;
    }

    it('are strong sha256 tags, stable across requests and across relay instances', async () => {
      for (const [name, path, as, headers] of resources) {
        const etag = await etagOf(path, as, headers);
        assert.equal(await etagOf(path, as, headers), etag, `${name} is stable`);
        assert.equal(await etagOf(path, as, headers, replica), etag, `${name} is equal on a replica`);
      }
    });

    it('answer If-None-Match with 304 for an exact, *, weak or listed match', async () => {
      for (const [name, path, as, headers] of resources) {
        const etag = await etagOf(path, as, headers);
        for (const ifNoneMatch of [
          etag,
          '*',
          `W/${etag}`,
          `"sha256:${'0'.repeat(64)}", ${etag}`,
          `W/"x",${etag} ,"y"`,
        ]) {
          const response = await relay.get(path, {
            as,
            headers: { ...headers, 'if-none-match': ifNoneMatch },
          });
          assert.equal(response.statusCode, 304, `${name} with ${ifNoneMatch}`);
          assert.equal(response.headers.etag, etag);
          assert.equal(response.body, '');
        }
        for (const ifNoneMatch of [
          `"sha256:${'0'.repeat(64)}"`,
          etag.slice(1, -1),
          `W/"sha256:${'1'.repeat(64)}"`,
          '',
        ]) {
          const response = await relay.get(path, {
            as,
            headers: { ...headers, 'if-none-match': ifNoneMatch },
          });
          assert.equal(response.statusCode, 200, `${name} with ${ifNoneMatch}`);
          assert.equal(response.headers.etag, etag);
          assert.ok(response.body.length > 0);
        }
      }
    });

    it('are never answered with 304 for an invalid request', async () => {
      const star = { 'if-none-match': '*' };
      const cursor = await cursorOf(`${HOUSEHOLDS}?limit=5`);
      const cases: [string, Persona | undefined, Record<string, string>, number, string][] = [
        [`${HOUSEHOLDS}?limit=0`, 'caseworker', star, 400, 'filter.limit_out_of_range'],
        [`${HOUSEHOLDS}?district.foo=1`, 'caseworker', star, 400, 'filter.unsupported_op'],
        [`${HOUSEHOLDS}?cursor=garbage`, 'caseworker', star, 400, 'pagination.cursor_malformed'],
        [
          `${HOUSEHOLDS}?district=lakeside&cursor=${cursor}`,
          'caseworker',
          star,
          400,
          'pagination.cursor_invalidated',
        ],
        [`${HOUSEHOLDS}/hh-9999`, 'caseworker', star, 404, 'schema.unknown_resource'],
        [`${HOUSEHOLDS}/hh-1033?fields=nope`, 'caseworker', star, 400, 'filter.unknown_field'],
        [`${HOUSEHOLDS}/hh-1033/relationships/nope`, 'caseworker', star, 404, 'schema.unknown_resource'],
        [
          `${HOUSEHOLDS}/hh-1033/relationships/members?limit=0`,
          'caseworker',
          star,
          400,
          'filter.limit_out_of_range',
        ],
        [`${PERSONS}?person_id=per-10001`, 'caseworker', star, 400, 'auth.purpose_required'],
        [
          `${PERSONS}?district=lakeside`,
          'caseworker',
          { ...star, 'data-purpose': PURPOSE },
          400,
          'entity.filter_required',
        ],
        [`${HOUSEHOLDS}`, 'health_planner', star, 403, 'auth.scope_denied'],
        [`${SP}/households/schema`, 'verifier_service', star, 403, 'auth.scope_denied'],
        [`${HOUSEHOLDS}`, undefined, star, 401, 'auth.missing_credential'],
      ];
      for (const [path, as, headers, status, code] of cases) {
        assertProblem(await relay.get(path, { ...(as ? { as } : {}), headers }), status, code);
      }
    });

    it('differ between different queries and resources, not between parameter orders', async () => {
      const cursor = await cursorOf(`${HOUSEHOLDS}?limit=10`);
      const paths = [
        HOUSEHOLDS,
        `${HOUSEHOLDS}?limit=10`,
        `${HOUSEHOLDS}?limit=11`,
        `${HOUSEHOLDS}?limit=10&cursor=${cursor}`,
        `${HOUSEHOLDS}?district=lakeside`,
        `${HOUSEHOLDS}?district=highmoor`,
        `${HOUSEHOLDS}?fields=household_id`,
        `${HOUSEHOLDS}?expand=members`,
        `${HOUSEHOLDS}/hh-1001`,
        `${HOUSEHOLDS}/hh-1002`,
        `${HOUSEHOLDS}/hh-1001?fields=district`,
        `${HOUSEHOLDS}/hh-1001?expand=payments`,
        `${HOUSEHOLDS}/hh-1033/relationships/members`,
        `${HOUSEHOLDS}/hh-1033/relationships/members?limit=3`,
        `${HOUSEHOLDS}/hh-1116/relationships/members`,
        `${HOUSEHOLDS}/hh-1033/relationships/payments`,
        `${SP}/households/schema`,
        `${SP}/members/schema`,
        `${SP}/payments/records`,
      ];
      const etags = await Promise.all(paths.map((path) => etagOf(path)));
      assert.equal(new Set(etags).size, paths.length);
      assert.equal(
        await etagOf(`${HOUSEHOLDS}?district=lakeside&limit=5`),
        await etagOf(`${HOUSEHOLDS}?limit=5&district=lakeside`),
      );
    });

    it('of a page differ by purpose and credential, as its next-page cursor does', async () => {
      // A 304 lets the client reuse the body it has: its cursor must be one this caller may continue with.
      for (const path of [`${HOUSEHOLDS}?limit=5`, `${HOUSEHOLDS}/hh-1033/relationships/members?limit=3`]) {
        const plain = await etagOf(path);
        const other = `${PURPOSE}/other`;
        const withPurpose = await etagOf(path, 'caseworker', { 'data-purpose': other });
        const otherCaller = await etagOf(path, 'verifier_service');
        assert.equal(new Set([plain, withPurpose, otherCaller]).size, 3, path);
        const revalidated = await relay.get(path, {
          as: 'caseworker',
          headers: { 'data-purpose': other, 'if-none-match': plain },
        });
        assert.equal(revalidated.statusCode, 200, path);
        const { cursor } = await page(path, { headers: { 'data-purpose': other } });
        assert.ok(cursor, path);
        const next = await relay.get(`${path}&cursor=${cursor}`, {
          as: 'caseworker',
          headers: { 'data-purpose': other },
        });
        assert.equal(next.statusCode, 200, next.body);
        // The same caller and purpose still revalidate.
        assert.equal(await etagOf(path), plain);
      }
    });

    it('change with the data generation of the tables they cover', async () => {
      for (const path of [
        HOUSEHOLDS,
        `${HOUSEHOLDS}/hh-1033`,
        `${HOUSEHOLDS}/hh-1033/relationships/members`,
        `${PAYMENTS}?expand=household`,
      ]) {
        assert.notEqual(await etagOf(path, 'caseworker', {}, reloaded), await etagOf(path), path);
      }
      for (const path of [PAYMENTS, `${SP}/members/records/mem-5001`]) {
        assert.equal(await etagOf(path, 'caseworker', {}, reloaded), await etagOf(path), path);
      }
    });
  });
});
