// Demo aggregate results against the files: relationship dimensions, small-cell suppression (mask, omit, counts)
// and filters, temporal ranges and relationship filters alike by GET and POST.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PURPOSE } from '../helpers/relay-harness.ts';
import {
  BEDS,
  cents,
  groupsOf,
  HOUSEHOLDS,
  PAYMENTS,
  PERSONS,
  useDemoAggregates,
  WORKBOOK_TIME,
} from './aggregates-fixture.ts';

describe('aggregate execution (demo)', () => {
  const setup = useDemoAggregates();

  it('computes payments per household district (a relationship dimension) as the files say', async () => {
    const { data, districtOf, get } = setup;
    const response = await get(PAYMENTS);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    const body = response.json();
    const expected = groupsOf(data.payments, (p) => String(districtOf.get(p.household_id)));
    assert.deepEqual(
      body.observations.map((o: Record<string, unknown>) => o.district),
      [...expected.keys()],
    );
    for (const observation of body.observations) {
      const rows = expected.get(observation.district) ?? [];
      const amounts = rows.map((row) => row.amount as number);
      assert.equal(observation.payments, rows.length);
      assert.equal(cents(observation.total_amount), cents(amounts.reduce((a, b) => a + b, 0)));
      assert.equal(observation.households_paid, new Set(rows.map((row) => row.household_id)).size);
      assert.equal(observation.attributes, undefined);
    }
    assert.deepEqual(body.completeness, { complete: true, truncated: false });
    assert.deepEqual(body.freshness, { computed_at: WORKBOOK_TIME, as_of: WORKBOOK_TIME });
    // Configured as `mask`; results name the outcome, `null` (measures nulled, keys kept), as `null` would.
    assert.equal(body.disclosure_control.suppression, 'null');
    assert.equal(body.disclosure_control.suppressed_observations, null, 'hidden on personal data');
    const total = body.structure.measures.find((m: { id: string }) => m.id === 'total_amount');
    assert.equal(total.definition_uri, 'https://vocab.example.org/ambit-demo/measures/total-amount');
    assert.deepEqual(body.structure.dimensions[0].field, 'household.district');
  });

  it('masks groups below the minimum cell size, keeping their keys (suppression: mask)', async () => {
    const { data, districtOf, get } = setup;
    const body = (
      await get(`${PAYMENTS}?group_by=district,payment_status&measures=payments,total_amount`)
    ).json();
    const expected = groupsOf(data.payments, (p) => `${districtOf.get(p.household_id)}|${p.payment_status}`);
    assert.equal(body.observations.length, expected.size);
    let masked = 0;
    for (const observation of body.observations) {
      const size = expected.get(`${observation.district}|${observation.payment_status}`)?.length ?? 0;
      if (size < 5) {
        masked++;
        assert.equal(observation.payments, null);
        assert.equal(observation.total_amount, null);
        assert.deepEqual(observation.attributes, { payments$status: 'S', total_amount$status: 'S' });
      } else {
        assert.equal(observation.payments, size);
      }
    }
    assert.ok(masked > 0, 'the demo data has small status groups');
    assert.deepEqual(body.completeness, { complete: false, truncated: false });
    assert.equal(body.disclosure_control.suppressed_observations, null);
  });

  it('omits small groups and hides their number on personal data (suppression: omit)', async () => {
    const { data, get } = setup;
    const body = (await get(HOUSEHOLDS)).json();
    const expected = groupsOf(data.households, (h) => `${h.district}|${h.poverty_band}`);
    const kept = [...expected].filter(([, rows]) => rows.length >= 5);
    assert.ok(kept.length < expected.size);
    assert.deepEqual(
      body.observations.map((o: Record<string, unknown>) => [
        `${o.district}|${o.poverty_band}`,
        o.households,
      ]),
      kept.map(([key, rows]) => [key, rows.length]),
    );
    assert.ok(!body.observations.some((o: Record<string, unknown>) => o.district === 'dunmere'));
    assert.equal(body.disclosure_control.suppressed_observations, null);
    assert.deepEqual(body.completeness, { complete: false, truncated: false });
  });

  it('does not tell an omitted small cell from an empty one where their number is hidden', async () => {
    const { data, get } = setup;
    const sizes = groupsOf(data.households, (h) => `${h.district}|${h.enrollment_status}`);
    const small = [...sizes].find(([, rows]) => rows.length > 0 && rows.length < 5)?.[0];
    assert.ok(small, 'the demo data has a small district and status cell');
    const [district, status] = small.split('|');
    const cell = async (query: string) => {
      const response = await get(`${HOUSEHOLDS}?group_by=&measures=households&${query}`, {
        accept: 'text/csv',
      });
      assert.equal(response.statusCode, 200, response.body);
      return [response.body, response.headers['x-ambit-completeness']];
    };
    const omitted = await cell(`district=${district}&enrollment_status=${status}`);
    const empty = await cell(`district=${district}&enrollment_status=no_such_status`);
    assert.deepEqual(omitted, empty);
    const json = (await get(`${HOUSEHOLDS}?group_by=&district=${district}&enrollment_status=none`)).json();
    assert.deepEqual(json.observations, []);
    assert.deepEqual(json.completeness, { complete: false, truncated: false });
  });

  it('reports the number of suppressed groups where configured or on non-personal data (null mode)', async () => {
    const { data, get } = setup;
    const persons = (await get(PERSONS, { 'data-purpose': PURPOSE })).json();
    const bySexDistrict = groupsOf(data.persons, (p) => `${p.district}|${p.sex}`);
    const small = [...bySexDistrict.values()].filter((rows) => rows.length < 5).length;
    assert.equal(persons.disclosure_control.suppression, 'null');
    assert.equal(persons.disclosure_control.suppressed_observations, small);
    assert.equal(persons.observations.filter((o: { persons: unknown }) => o.persons === null).length, small);
    const beds = (await get(BEDS)).json();
    const byTypeDistrict = groupsOf(data.facilities, (f) => `${f.district}|${f.facility_type}`);
    const omitted = [...byTypeDistrict.values()].filter((rows) => rows.length < 3).length;
    assert.equal(beds.disclosure_control.suppressed_observations, omitted);
    assert.equal(beds.observations.length, byTypeDistrict.size - omitted);
  });

  it('applies filters, temporal ranges and relationship filters alike by GET and POST', async () => {
    const { data, districtOf, post, get } = setup;
    const byGet = (
      await get(`${PAYMENTS}?group_by=cycle&household.district=lakeside&cycle.gte=2026-03`)
    ).json();
    const byPost = (
      await post(`${PAYMENTS}/query`, {
        group_by: ['cycle'],
        filters: { 'household.district': 'lakeside' },
        temporal: { from: '2026-03' },
      })
    ).json();
    assert.deepEqual(byPost.observations, byGet.observations);
    const expected = groupsOf(
      data.payments.filter(
        (p) => districtOf.get(p.household_id) === 'lakeside' && String(p.cycle) >= '2026-03',
      ),
      (p) => String(p.cycle),
    );
    assert.deepEqual(
      byGet.observations.map((o: Record<string, unknown>) => [o.cycle, o.payments]),
      [...expected].map(([cycle, rows]) => [cycle, rows.length]),
    );
    const one = (
      await post(`${PAYMENTS}/query`, { group_by: [], temporal: { from: '2026-06', to: '2026-06' } })
    ).json();
    assert.equal(one.observations[0].payments, data.payments.filter((p) => p.cycle === '2026-06').length);
  });
});
