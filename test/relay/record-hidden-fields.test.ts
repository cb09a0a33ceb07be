// Storage-only and sensitive fields in entity reads: storage-only columns never leave the relay (pages,
// expansions, schemas, OpenAPI), sensitive ones are served and marked as such.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Persona } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { STORAGE_ONLY_COLUMNS } from './read-demo-data.ts';
import { CR, HF, ids, SP, useRecordReads, WITH_PURPOSE } from './record-reads-fixture.ts';
import { walkPages } from './walk-pages.ts';

describe('entity record reads', () => {
  const setup = useRecordReads();

  describe('storage-only and sensitive fields', () => {
    function assertNoStorage(body: string, where: string): void {
      for (const column of STORAGE_ONLY_COLUMNS) {
        assert.ok(!body.includes(column), `${where} mentions ${column}`);
      }
      for (const value of setup.demo.storageValues) {
        assert.ok(!body.includes(value), `${where} contains the storage-only value ${value}`);
      }
    }

    it('never appear in full pages of any entity', async () => {
      const { relay } = setup;
      const reads: [string, Persona][] = [
        [`${SP}/households/records?limit=200`, 'caseworker'],
        [`${SP}/members/records?limit=150`, 'caseworker'],
        [`${SP}/payments/records?limit=500`, 'caseworker'],
        [`${HF}/facilities/records?limit=500`, 'health_planner'],
      ];
      for (const [path, as] of reads) {
        const pages = await walkPages(relay, path, { as, follow: 'link' });
        for (const page of pages) assertNoStorage(JSON.stringify(page.data), path);
      }
    });

    it('never appear in expansions, schemas or the OpenAPI document', async () => {
      const { getJson } = setup;
      for (const path of [
        `${SP}/households/records?limit=200&expand=members,payments`,
        `${SP}/members/records?limit=200&expand=household`,
        `${SP}/households/records/hh-1033?expand=members,payments`,
      ]) {
        assertNoStorage((await getJson(path)).response.body, path);
      }
      for (const path of [
        `${CR}/persons/schema`,
        `${SP}/households/schema`,
        `${SP}/members/schema`,
        `${SP}/payments/schema`,
        `${HF}/facilities/schema`,
        '/openapi.json',
      ]) {
        assertNoStorage((await getJson(path, 'analyst')).response.body, path);
      }
      for (const as of ['caseworker', 'health_planner', 'catalog_viewer'] as const) {
        assertNoStorage((await getJson('/openapi.json', as)).response.body, `/openapi.json as ${as}`);
      }
    });

    it('every person is served by id and by required filter with its sensitive national_id, nothing more', async () => {
      const { demo, getJson, allRows } = setup;
      assert.equal(demo.persons.length, 400);
      // Requests are issued together: the relay answers each independently.
      await Promise.all(
        demo.persons.map(async (person, index) => {
          const record = await getJson(
            `${CR}/persons/records/${person.person_id}`,
            'caseworker',
            WITH_PURPOSE,
          );
          assert.deepEqual(record.body, person);
          assertNoStorage(record.response.body, `person ${person.person_id}`);
          const filter =
            index % 2 === 0 ? `person_id=${person.person_id}` : `national_id.eq=${person.national_id}`;
          const page = await getJson(`${CR}/persons/records?${filter}`, 'verifier_service', WITH_PURPOSE);
          assert.deepEqual(page.body, { data: [person], pagination: { has_more: false } });
        }),
      );
      const byNationalId = await allRows(
        `${CR}/persons/records?national_id=FAKE-937193`,
        'caseworker',
        WITH_PURPOSE,
      );
      assert.deepEqual(ids(byNationalId, 'person_id'), ['per-10053']);
    });

    it('the schema marks national_id sensitive but still lists it', async () => {
      const { demo, getJson } = setup;
      const { body } = await getJson(`${CR}/persons/schema`, 'caseworker');
      const national = body.fields.find((field: { name: string }) => field.name === 'national_id');
      assert.equal(national.sensitive, true);
      assert.equal(
        body.fields.find((field: { name: string }) => field.name === 'given_name').sensitive,
        false,
      );
      assert.deepEqual(
        body.fields.map((field: { name: string }) => field.name),
        Object.keys(demo.persons[0] ?? {}),
      );
    });

    it('a storage-only column cannot be filtered on', async () => {
      const { relay } = setup;
      assertProblem(
        await relay.get(`${SP}/households/records?case_notes=x`, { as: 'caseworker' }),
        400,
        'filter.not_allowed',
      );
      assertProblem(
        await relay.get(`${HF}/facilities/records?exact_latitude.gte=1`, { as: 'health_planner' }),
        400,
        'filter.not_allowed',
      );
    });
  });
});
