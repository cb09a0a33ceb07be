// Every filter, projection, expansion and limit error of a collection read, their precedence, and `.eq`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Persona, PURPOSE, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
const PAYMENTS = '/v1/datasets/social_protection/entities/payments/records';
const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';
const FACILITIES = '/v1/datasets/health_facilities/entities/facilities/records';
const WITH_PURPOSE = { 'data-purpose': PURPOSE };

describe('collection query errors', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  const get = (path: string, as: Persona = 'caseworker', headers: Record<string, string> = {}) =>
    relay.get(path, { as, headers });

  async function expectError(
    path: string,
    status: number,
    code: string,
    options: { as?: Persona; headers?: Record<string, string>; detail?: string | RegExp } = {},
  ) {
    assertProblem(await get(path, options.as, options.headers), status, code, options.detail);
  }

  async function householdIds(query: string): Promise<string[]> {
    const response = await get(`${HOUSEHOLDS}?${query}&limit=200`);
    assert.equal(response.statusCode, 200, response.body);
    return response.json().data.map((row: { household_id: string }) => row.household_id);
  }

  describe('filter.unsupported_op', () => {
    it('rejects any suffix other than eq, in, gte, lte, between', async () => {
      for (const name of [
        'district.like',
        'district.EQ',
        'district.ne',
        'household_size.gt',
        'household_size.',
        'district.in.x',
      ]) {
        await expectError(`${HOUSEHOLDS}?${name}=1`, 400, 'filter.unsupported_op');
      }
    });
  });

  describe('filter.not_allowed', () => {
    it('rejects unknown fields and storage-only or table-side names', async () => {
      for (const name of ['colour', 'case_notes', 'head_person_id', 'household_size_x', 'members']) {
        await expectError(`${HOUSEHOLDS}?${name}=1`, 400, 'filter.not_allowed');
      }
    });

    it('rejects an operator the field does not allow', async () => {
      await expectError(`${HOUSEHOLDS}?household_size.in=1,2`, 400, 'filter.not_allowed', {
        detail: '`household_size` accepts eq, gte, lte, between',
      });
      await expectError(`${HOUSEHOLDS}?enrolled_on=2025-01-01`, 400, 'filter.not_allowed');
      await expectError(`${HOUSEHOLDS}?enrolled_on.eq=2025-01-01`, 400, 'filter.not_allowed');
      await expectError(`${HOUSEHOLDS}?head_of_household_person_id.in=per-10053`, 400, 'filter.not_allowed');
      await expectError(`${PAYMENTS}?amount=10`, 400, 'filter.not_allowed');
      await expectError(`${FACILITIES}?beds=3`, 400, 'filter.not_allowed', { as: 'health_planner' });
      await expectError(
        `${PERSONS}?person_id=per-10001&national_id.in=FAKE-412781`,
        400,
        'filter.not_allowed',
        {
          headers: WITH_PURPOSE,
        },
      );
    });
  });

  describe('filter.too_many_filters', () => {
    const unknown = (count: number) => Array.from({ length: count }, (_, i) => `f${i}=1`).join('&');

    it('counts filter parameters only, and allows exactly 20', async () => {
      await expectError(`${HOUSEHOLDS}?${unknown(21)}`, 400, 'filter.too_many_filters');
      // Twenty pass the cap and are then parsed (and rejected as unknown), reserved names do not count.
      await expectError(
        `${HOUSEHOLDS}?${unknown(20)}&limit=1&fields=district&expand=members&cursor=x`,
        400,
        'filter.not_allowed',
      );
    });

    it('answers a valid query combining every filter the entity allows', async () => {
      const filters = [
        'payment_id.in=pay-7001,pay-7002,pay-7003',
        'household_id=hh-1001',
        'household_id.in=hh-1001,hh-1002',
        'cycle.in=2026-02,2026-03',
        'cycle.gte=2026-01',
        'cycle.lte=2026-06',
        'cycle.between=2026-01,2026-06',
        'amount.gte=1',
        'amount.lte=1000',
        'amount.between=1,1000',
        'paid_on.gte=2026-01-01',
        'paid_on.lte=2026-12-31',
        'paid_on.between=2026-01-01,2026-12-31',
        'payment_status=paid',
        'payment_status.in=paid,reversed',
        'payment_channel=mobile_money',
        'payment_channel.in=mobile_money',
        'payment_id.eq=pay-7001',
        'cycle=2026-02',
      ];
      const response = await get(`${PAYMENTS}?${filters.join('&')}`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(
        response.json().data.map((row: { payment_id: string }) => row.payment_id),
        ['pay-7001'],
      );
      const twentyOne = [...filters, 'amount.eq=1', 'payment_channel.between=a,b'];
      assert.equal(new Set(twentyOne.map((filter) => filter.split('=')[0])).size, 21);
      await expectError(`${PAYMENTS}?${twentyOne.join('&')}`, 400, 'filter.too_many_filters');
    });
  });

  describe('filter.too_many_values', () => {
    const values = (count: number) => Array.from({ length: count }, (_, i) => `hh-${1001 + i}`).join(',');

    it('answers 413 above 100 in-values and accepts exactly 100', async () => {
      await expectError(`${HOUSEHOLDS}?household_id.in=${values(101)}`, 413, 'filter.too_many_values');
      assert.equal((await householdIds(`household_id.in=${values(100)}`)).length, 100);
    });
  });

  describe('filter.invalid_range', () => {
    it('needs exactly two values in order', async () => {
      for (const query of [
        'household_size.between=5',
        'household_size.between=1,2,3',
        'household_size.between=',
        'household_size.between=,5',
        'household_size.between=10,9',
        'enrolled_on.between=2025-12-31,2025-01-01',
      ]) {
        await expectError(`${HOUSEHOLDS}?${query}`, 400, 'filter.invalid_range');
      }
      await expectError(`${PAYMENTS}?cycle.between=2026-06,2026-01`, 400, 'filter.invalid_range');
      await expectError(`${PAYMENTS}?amount.between=100.5,100.25`, 400, 'filter.invalid_range');
    });

    it('orders string bounds by code point, as rows are ordered (U+FFFF before U+1F600)', async () => {
      const response = await get(`${PAYMENTS}?cycle.between=%EF%BF%BF,%F0%9F%98%80`);
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().data, []);
      await expectError(`${PAYMENTS}?cycle.between=%F0%9F%98%80,%EF%BF%BF`, 400, 'filter.invalid_range');
    });

    it('compares bounds by type, not as text', async () => {
      const ids = await householdIds('household_size.between=7,10');
      assert.ok(ids.length > 0);
    });
  });

  describe('filter.invalid_value', () => {
    it('rejects values that do not parse as the field type', async () => {
      for (const query of [
        'household_size=abc',
        'household_size=2.5',
        'household_size.gte=1e3x',
        'enrolled_on.gte=2025-13-01',
        'enrolled_on.gte=2025-02-30',
        'enrolled_on.lte=yesterday',
        'household_size.between=1,many',
      ]) {
        await expectError(`${HOUSEHOLDS}?${query}`, 400, 'filter.invalid_value');
      }
      await expectError(`${PAYMENTS}?amount.gte=ten`, 400, 'filter.invalid_value');
      // Beyond the double range: refused, not compared as Infinity.
      await expectError(`${PAYMENTS}?amount.gte=1e400`, 400, 'filter.invalid_value');
      await expectError(`${PAYMENTS}?amount.between=-1e400,0`, 400, 'filter.invalid_value');
      await expectError(`${FACILITIES}?opened_on.gte=1990/01/01`, 400, 'filter.invalid_value', {
        as: 'health_planner',
      });
      await expectError(`${PERSONS}?person_id=per-10001&deceased=maybe`, 400, 'filter.invalid_value', {
        headers: WITH_PURPOSE,
      });
    });

    it('rejects empty and blank values', async () => {
      for (const query of [
        'district=',
        'district=%20%20',
        'district.in=',
        'district.in=,%20,',
        'household_size.gte=',
        'household_id.eq=',
      ]) {
        await expectError(`${HOUSEHOLDS}?${query}`, 400, 'filter.invalid_value');
      }
      await expectError(`${PAYMENTS}?cycle.gte=%20`, 400, 'filter.invalid_value');
    });

    it('rejects a repeated parameter, including `field` sent together with `field.eq`', async () => {
      for (const query of [
        'district=lakeside&district=highmoor',
        'district=lakeside&district=lakeside',
        'district.in=lakeside&district.in=dunmere',
        'household_size.gte=1&household_size.gte=2',
        'district=lakeside&district.eq=lakeside',
        'limit=1&limit=2',
        'fields=district&fields=household_id',
      ]) {
        await expectError(`${HOUSEHOLDS}?${query}`, 400, 'filter.invalid_value');
      }
    });
  });

  describe('filter.limit_out_of_range', () => {
    it('accepts 1 to max_limit only, as a plain integer', async () => {
      for (const limit of ['0', '201', '-1', '1.5', 'abc', '', '1e2', '%201', '0x10', '999999999']) {
        await expectError(`${HOUSEHOLDS}?limit=${limit}`, 400, 'filter.limit_out_of_range', {
          detail: 'limit must be an integer from 1 to 200',
        });
      }
      assert.equal((await get(`${HOUSEHOLDS}?limit=1`)).json().data.length, 1);
      assert.equal((await get(`${HOUSEHOLDS}?limit=200`)).json().data.length, 120);
      await expectError(`${PAYMENTS}?limit=501`, 400, 'filter.limit_out_of_range');
      assert.equal((await get(`${PAYMENTS}?limit=500`)).json().data.length, 460);
    });
  });

  describe('filter.unknown_field', () => {
    it('rejects an unknown, storage-only, table-side or empty projection', async () => {
      for (const fields of ['nope', 'district,nope', 'case_notes', 'head_person_id', '', ',', 'members']) {
        await expectError(`${HOUSEHOLDS}?fields=${fields}`, 400, 'filter.unknown_field');
      }
      await expectError(`${HOUSEHOLDS}/hh-1001?fields=nope`, 400, 'filter.unknown_field');
      await expectError(`${FACILITIES}?fields=exact_latitude`, 400, 'filter.unknown_field', {
        as: 'health_planner',
      });
      await expectError(`${PERSONS}?person_id=per-10001&fields=phone`, 400, 'filter.unknown_field', {
        headers: WITH_PURPOSE,
      });
    });
  });

  describe('expand.not_allowed', () => {
    it('rejects names outside allowed_expansions, wildcards and nesting', async () => {
      for (const expand of ['nope', '*', 'members.household', 'members,*', 'household', 'members,nope']) {
        await expectError(`${HOUSEHOLDS}?expand=${expand}`, 400, 'expand.not_allowed');
        await expectError(`${HOUSEHOLDS}/hh-1001?expand=${expand}`, 400, 'expand.not_allowed');
      }
      await expectError(
        `/v1/datasets/social_protection/entities/members/records?expand=household.members`,
        400,
        'expand.not_allowed',
      );
      await expectError(`${FACILITIES}?expand=district`, 400, 'expand.not_allowed', { as: 'health_planner' });
    });
  });

  describe('required filters and purpose', () => {
    const required = {
      headers: WITH_PURPOSE,
      detail:
        'entity persons needs an equality filter (field=value) on one of: person_id, national_id; an .in list or a range does not count',
    };

    it('needs an equality on person_id or national_id, and says an .in or a range does not count', async () => {
      for (const query of [
        '',
        '?district=lakeside',
        '?person_id.in=per-10001',
        '?person_id.in=per-10001,per-10002',
        '?birth_date.gte=1950-01-01',
        '?deceased=true&district.in=lakeside',
        '?limit=5',
      ]) {
        await expectError(`${PERSONS}${query}`, 400, 'entity.filter_required', required);
      }
    });

    it('comes after every other parameter: a malformed one is reported first (decision 0003)', async () => {
      const malformed: [string, string][] = [
        ['?fields=no_such_field', 'filter.unknown_field'],
        ['?limit=0', 'filter.limit_out_of_range'],
        ['?no_such_field=1', 'filter.not_allowed'],
        ['?district.like=lake', 'filter.unsupported_op'],
      ];
      for (const [query, code] of malformed) {
        await expectError(`${PERSONS}${query}`, 400, code, { headers: WITH_PURPOSE });
      }
    });

    it('is satisfied by bare or .eq equality on either field', async () => {
      for (const query of [
        'person_id=per-10001',
        'person_id.eq=per-10001',
        'national_id=FAKE-412781',
        'national_id.eq=FAKE-412781',
      ]) {
        const response = await get(`${PERSONS}?${query}`, 'caseworker', WITH_PURPOSE);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(
          response.json().data.map((row: { person_id: string }) => row.person_id),
          ['per-10001'],
        );
      }
    });

    it('is not needed to read one record by id', async () => {
      const response = await get(`${PERSONS}/per-10001`, 'caseworker', WITH_PURPOSE);
      assert.equal(response.statusCode, 200);
      assert.equal(response.json().national_id, 'FAKE-412781');
    });

    it('checks purpose (missing or blank) before every parameter and the required filters', async () => {
      const variants: Record<string, string>[] = [{}, { 'data-purpose': '' }, { 'data-purpose': '   ' }];
      for (const headers of variants) {
        for (const query of ['', '?limit=0', '?district.foo=1', '?fields=nope', '?person_id=per-10001']) {
          await expectError(`${PERSONS}${query}`, 400, 'auth.purpose_required', { headers });
        }
        await expectError(`${PERSONS}/per-10001`, 400, 'auth.purpose_required', { headers });
        await expectError(`${PERSONS}/per-10001?fields=nope`, 400, 'auth.purpose_required', { headers });
        await expectError(`${PERSONS}/per-99999`, 400, 'auth.purpose_required', { headers });
      }
    });

    it('reports parameter errors before a missing required filter', async () => {
      const headers = WITH_PURPOSE;
      await expectError(`${PERSONS}?limit=0`, 400, 'filter.limit_out_of_range', { headers });
      await expectError(`${PERSONS}?district.foo=1`, 400, 'filter.unsupported_op', { headers });
      await expectError(`${PERSONS}?sex=female`, 400, 'filter.not_allowed', { headers });
      await expectError(`${PERSONS}?fields=nope`, 400, 'filter.unknown_field', { headers });
      await expectError(`${PERSONS}?expand=household`, 400, 'expand.not_allowed', { headers });
      await expectError(`${PERSONS}?birth_date.between=2000-01-01,1990-01-01`, 400, 'filter.invalid_range', {
        headers,
      });
      await expectError(`${PERSONS}?person_id=%20`, 400, 'filter.invalid_value', { headers });
    });
  });

  describe('.eq', () => {
    it('means the same as the bare parameter on every type', async () => {
      const pairs: [string, string, string, Persona][] = [
        [HOUSEHOLDS, 'district=redfield', 'district.eq=redfield', 'caseworker'],
        [HOUSEHOLDS, 'household_size=4', 'household_size.eq=4', 'caseworker'],
        [
          PAYMENTS,
          'cycle=2026-03&payment_status=failed',
          'cycle.eq=2026-03&payment_status.eq=failed',
          'caseworker',
        ],
        [FACILITIES, 'facility_type=hospital', 'facility_type.eq=hospital', 'health_planner'],
        [
          PERSONS,
          'person_id=per-10223&deceased=true',
          'person_id.eq=per-10223&deceased.eq=true',
          'caseworker',
        ],
      ];
      for (const [path, bare, eq, as] of pairs) {
        const a = await get(`${path}?${bare}&limit=100`, as, WITH_PURPOSE);
        const b = await get(`${path}?${eq}&limit=100`, as, WITH_PURPOSE);
        assert.equal(a.statusCode, 200, a.body);
        assert.equal(b.statusCode, 200, b.body);
        assert.ok(a.json().data.length > 0, bare);
        assert.deepEqual(b.json(), a.json(), eq);
      }
    });

    it('combines with other filters as a conjunction', async () => {
      const both = await householdIds('district.eq=redfield&household_size.eq=8');
      const district = new Set(await householdIds('district=redfield'));
      const size = new Set(await householdIds('household_size=8'));
      assert.deepEqual(
        both,
        [...district].filter((id) => size.has(id)),
      );
      assert.ok(both.includes('hh-1033'));
    });

    it('is parsed like equality and refused where the field does not allow it', async () => {
      await expectError(`${HOUSEHOLDS}?household_size.eq=abc`, 400, 'filter.invalid_value');
      await expectError(`${PAYMENTS}?paid_on.eq=2026-02-14`, 400, 'filter.not_allowed');
      await expectError(
        `${PERSONS}?person_id=per-10001&birth_date.eq=1955-02-02`,
        400,
        'filter.not_allowed',
        {
          headers: WITH_PURPOSE,
        },
      );
    });
  });
});
