// ETags: stable sha256 tags, If-None-Match and 304, never for an invalid request, and what changes them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Persona, PURPOSE } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { HOUSEHOLDS, PAYMENTS, PERSONS, SP, useCursorsAndEtags } from './cursors-etags-fixture.ts';

describe('cursors and ETags', () => {
  const setup = useCursorsAndEtags();
  const { page, cursorOf, etagOf } = setup;

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

    it('are strong sha256 tags, stable across requests and across relay instances', async () => {
      const { replica } = setup;
      for (const [name, path, as, headers] of resources) {
        const etag = await etagOf(path, as, headers);
        assert.equal(await etagOf(path, as, headers), etag, `${name} is stable`);
        assert.equal(await etagOf(path, as, headers, replica), etag, `${name} is equal on a replica`);
      }
    });

    it('answer If-None-Match with 304 for an exact, *, weak or listed match', async () => {
      const { relay } = setup;
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
      const { relay } = setup;
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
      const { relay } = setup;
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

    it('of a page differ on a relay signing cursors with another key, whose cursors the page would hold', async () => {
      const { relay, otherSecret } = setup;
      for (const path of [`${HOUSEHOLDS}?limit=5`, `${HOUSEHOLDS}/hh-1033/relationships/members?limit=3`]) {
        const etag = await etagOf(path);
        // A 304 there would keep the client on a next_cursor that relay refuses as malformed.
        const revalidated = await otherSecret.get(path, {
          as: 'caseworker',
          headers: { 'if-none-match': etag },
        });
        assert.equal(revalidated.statusCode, 200, path);
        assert.notEqual(revalidated.headers.etag, etag, path);
        const { cursor } = await page(path);
        assert.ok(cursor, path);
        assertProblem(
          await otherSecret.get(`${path}&cursor=${cursor}`, { as: 'caseworker' }),
          400,
          'pagination.cursor_malformed',
        );
        // Records and other answers that carry no cursor stay equal, whatever the key.
        assert.equal(
          await etagOf(`${HOUSEHOLDS}/hh-1033`, 'caseworker', {}, otherSecret),
          await etagOf(`${HOUSEHOLDS}/hh-1033`, 'caseworker', {}, relay),
        );
      }
    });

    it('change with the data generation of the tables they cover', async () => {
      const { reloaded } = setup;
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
