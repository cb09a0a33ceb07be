// Cursors: bound to query, caller and data generation, refused when tampered with, accepted by a replica.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PURPOSE, TEST_KEYS } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { HOUSEHOLDS, PAYMENTS, SP, useCursorsAndEtags } from './cursors-etags-fixture.ts';
import { withCursor } from './walk-pages.ts';

describe('cursors and ETags', () => {
  const setup = useCursorsAndEtags();
  const { page, cursorOf, householdIds } = setup;

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
      const { relay, demo } = setup;
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
      const { relay } = setup;
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
      const { relay } = setup;
      const headers = { 'data-purpose': PURPOSE };
      const others: Record<string, string>[] = [
        {},
        { 'data-purpose': `${PURPOSE}/other` },
        { 'data-purpose': ' ' },
      ];
      for (const path of [`${HOUSEHOLDS}?limit=5`, `${HOUSEHOLDS}/hh-1033/relationships/members?limit=3`]) {
        const cursor = await cursorOf(path, { headers });
        for (const other of others) {
          assertProblem(
            await relay.get(withCursor(path, cursor), { as: 'caseworker', headers: other }),
            400,
            'pagination.cursor_invalidated',
          );
        }
        assert.equal(
          (await relay.get(withCursor(path, cursor), { as: 'caseworker', headers })).statusCode,
          200,
        );
      }
      const cursor = await cursorOf(`${HOUSEHOLDS}?limit=5`, { headers });
      // The purpose is compared trimmed, as it is validated.
      const next = await page(`${HOUSEHOLDS}?limit=5&cursor=${cursor}`, {
        headers: { 'data-purpose': ` ${PURPOSE} ` },
      });
      assert.deepEqual(next.ids, householdIds().slice(5, 10));
    });

    it('are bound to the credential, whichever header carries it', async () => {
      const { relay } = setup;
      const related = `${HOUSEHOLDS}/hh-1033/relationships/members?limit=3`;
      const relatedCursor = await cursorOf(related);
      assertProblem(
        await relay.get(withCursor(related, relatedCursor), { as: 'verifier_service' }),
        400,
        'pagination.cursor_invalidated',
      );
      await page(withCursor(related, relatedCursor));
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
      const { relay } = setup;
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
      const { relay } = setup;
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
      const { relay, replica, otherSecret, demo } = setup;
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
      const { replica, reloaded, demo } = setup;
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
});
