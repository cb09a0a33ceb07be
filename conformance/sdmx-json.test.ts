// SDMX-JSON 2.1: every aggregate message validates against the official 2.1.0 data schema and follows its key rules.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2019 } from 'ajv/dist/2019.js';
import addFormatsModule from 'ajv-formats';
import {
  type ItemRow,
  testAggregate,
  testCatalog,
  testGeneration,
} from '../src/relay/aggregates/aggregate-test-support.ts';
import { computeAggregate } from '../src/relay/aggregates/compute-aggregate.ts';
import { parseAggregateBody } from '../src/relay/aggregates/parse-aggregate-request.ts';
import { renderAggregateCsv } from '../src/relay/aggregates/render-aggregate-csv.ts';
import { renderAggregateJson } from '../src/relay/aggregates/render-aggregate-json.ts';
import { renderAggregateSdmx } from '../src/relay/aggregates/render-aggregate-sdmx.ts';
import { PURPOSE, startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';
import { readStandardJson, standardsDir } from './standards-dir.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2019) => Ajv2019;
const SCHEMA_URL = 'https://json.sdmx.org/2.1/sdmx-json-data-schema.json';
const MEDIA_TYPE = 'application/vnd.sdmx.data+json;version=2.1';

interface Dimension {
  id: string;
  keyPosition: number;
  values?: unknown[];
}
interface Message {
  $schema: string;
  meta: Record<string, unknown>;
  data: {
    structures: {
      dataSets: number[];
      dimensions: { dataSet: Dimension[]; series: Dimension[]; observation: Dimension[] };
      measures: { observation: Record<string, unknown>[] };
      attributes?: {
        observation: { id: string; values: { id: string }[]; relationship: { measures?: string[] } }[];
      };
    }[];
    dataSets: { structure: number; action: string; observations: Record<string, unknown[]> }[];
  };
}

/** The rules of shared/standards/CHECKS.md §5 (R) that the schema cannot express. */
function checkKeyRules(message: Message): void {
  assert.equal(message.$schema, SCHEMA_URL);
  assert.equal(message.meta.schema, SCHEMA_URL);
  assert.deepEqual(message.meta.sender, { id: 'ambit-relay', name: 'Ambit Relay' });
  assert.equal(typeof (message.meta['x-completeness'] as { complete?: unknown }).complete, 'boolean');
  assert.equal(typeof (message.meta['x-completeness'] as { truncated?: unknown }).truncated, 'boolean');
  const [structure] = message.data.structures;
  const [dataSet] = message.data.dataSets;
  assert.ok(structure && dataSet);
  assert.equal(dataSet.structure, 0);
  assert.deepEqual(structure.dataSets, [0]);
  assert.ok(['Merge', 'Replace', 'Delete', 'Append', 'Information'].includes(dataSet.action));
  const dimensions = [...structure.dimensions.observation].sort((a, b) => a.keyPosition - b.keyPosition);
  assert.deepEqual(
    dimensions.map((d) => d.keyPosition),
    dimensions.map((_, i) => i),
  );
  const measures = structure.measures.observation;
  for (const measure of measures) {
    for (const extension of ['x-unitMeasure', 'x-unitMultiplier', 'x-decimals'])
      assert.ok(Object.hasOwn(measure, extension), `${measure.id} lacks ${extension}`);
    assert.ok(!Object.hasOwn(measure, 'definition_uri'));
  }
  const attributes = structure.attributes?.observation ?? [];
  for (const [key, values] of Object.entries(dataSet.observations)) {
    const indices = key.split(':').map(Number);
    assert.equal(indices.length, dimensions.length, `key ${key}`);
    indices.forEach((index, position) => {
      assert.ok(
        index < (dimensions[position]?.values?.length ?? 0),
        `key ${key} index ${index} out of range`,
      );
    });
    assert.equal(values.length, measures.length + attributes.length, `observation ${key}`);
    values.slice(0, measures.length).forEach((value) => {
      assert.ok(value === null || typeof value === 'number');
    });
    values.slice(measures.length).forEach((value, a) => {
      assert.ok(value === null || (typeof value === 'number' && value < (attributes[a]?.values.length ?? 0)));
    });
  }
}

/** What the renderers are given for `query` over `generation`, at a fixed time and digest. */
function answerOf(
  generation: Awaited<ReturnType<typeof testGeneration>>,
  aggregate: ReturnType<typeof testAggregate>,
  query: ReturnType<typeof parseAggregateBody>,
) {
  return {
    aggregate,
    query,
    result: computeAggregate(generation, aggregate, query),
    computedAt: 0,
    asOf: 0,
    digest: '0123abcd',
    links: {
      self: 'https://relay.test/a',
      structure: 'https://relay.test/s',
      json: 'j',
      csv: 'c',
      sdmx: 'https://relay.test/x',
    },
  };
}

describe('SDMX-JSON 2.1 aggregate messages', () => {
  const ajv = addFormats(new Ajv2019({ strict: false, allErrors: true }));
  const validate = ajv.compile(readStandardJson('sdmx-json/2.1.0/sdmx-json-data-schema.json') as object);
  const valid = (message: unknown) => {
    assert.equal(validate(message), true, JSON.stringify(validate.errors, null, 1));
  };
  let relay: TestRelay;

  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('the official 2.1.0 samples pass the validator used for our messages', () => {
    const dir = join(standardsDir(), 'sdmx-json/2.1.0/samples');
    const samples = readdirSync(dir).filter((name) => name.endsWith('.json'));
    assert.ok(samples.length >= 6);
    for (const name of samples) valid(readStandardJson(`sdmx-json/2.1.0/samples/${name}`));
  });

  it('the validator rejects what the schema forbids (a sanity check of the set-up)', () => {
    assert.equal(
      validate({ meta: { id: 'x', prepared: '2026-01-01T00:00:00', sender: { id: 'a' } } }),
      false,
    );
    assert.equal(validate({ meta: { id: 'x', prepared: '2026-01-01T00:00:00Z', sender: {} } }), false);
    assert.equal(
      validate({ meta: { id: 'x', prepared: '2026-01-01T00:00:00Z', sender: { id: 'a' }, extra: 1 } }),
      false,
    );
  });

  it('every demo aggregate, in every shape the relay produces, is a valid message', async () => {
    const paths = [
      '/v1/datasets/social_protection/aggregates/payments_by_district',
      '/v1/datasets/social_protection/aggregates/payments_by_district?group_by=district,payment_status',
      '/v1/datasets/social_protection/aggregates/payments_by_district?group_by=cycle,payment_channel,district&max_rows=5',
      '/v1/datasets/social_protection/aggregates/payments_by_district?group_by=',
      '/v1/datasets/social_protection/aggregates/payments_by_district?cycle=1999-01',
      '/v1/datasets/social_protection/aggregates/households_by_district',
      '/v1/datasets/civil_registry/aggregates/persons_by_district?group_by=deceased,sex',
      '/v1/datasets/health_facilities/aggregates/beds_by_district?group_by=ownership',
    ];
    for (const path of paths) {
      for (const how of [{ f: 'sdmx-json' }, { accept: MEDIA_TYPE }]) {
        const url = how.f ? `${path}${path.includes('?') ? '&' : '?'}f=${how.f}` : path;
        const headers = { 'data-purpose': PURPOSE, ...(how.accept ? { accept: how.accept } : {}) };
        const response = await relay.get(url, { as: 'analyst', headers });
        assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
        assert.equal(response.headers['content-type'], MEDIA_TYPE);
        const message = response.json() as Message;
        valid(message);
        checkKeyRules(message);
      }
    }
  });

  it('a POST with format sdmx-json is valid too, and marks truncation and masking', async () => {
    const response = await relay.inject({
      method: 'POST',
      url: '/v1/datasets/social_protection/aggregates/payments_by_district/query',
      headers: {
        authorization: 'Bearer test-key-analyst-000000000000000001',
        'content-type': 'application/json',
      },
      payload: JSON.stringify({ group_by: ['district', 'payment_status'], max_rows: 3, format: 'sdmx-json' }),
    });
    const message = response.json() as Message;
    valid(message);
    checkKeyRules(message);
    assert.deepEqual(message.meta['x-completeness'], { complete: false, truncated: true });
    const observations = Object.values(message.data.dataSets[0]?.observations ?? {});
    assert.ok(
      observations.some((values) => values.at(-1) === 0 && values[0] === null),
      'a masked observation',
    );
  });

  it('null keys, a grand total, empty answers and masked groups stay valid', async () => {
    const catalog = testCatalog();
    const items: ItemRow[] = Array.from({ length: 12 }, (_, i) => ({
      id: i + 1,
      cat: i % 4 === 0 ? null : (['a', 'b'][i % 2] as string),
      flag: i % 3 === 0 ? null : i % 2 === 0,
      size: i % 5 === 0 ? null : i % 3,
      amount: i % 7 === 0 ? null : i * 1.5,
      owner_id: i % 2 === 0 ? 'o1' : 'o9',
    }));
    const generation = await testGeneration(catalog, items, [{ owner_id: 'o1', region: 'north' }]);
    const bodies = [
      { group_by: ['cat', 'flag', 'size', 'region'] },
      { group_by: [] },
      { group_by: ['cat'], filters: { cat: 'zzz' } },
      { group_by: ['region', 'flag'], measures: ['rows', 'middle', 'spread', 'cats'] },
    ];
    for (const id of ['open', 'masking', 'omitting']) {
      const aggregate = testAggregate(catalog, id);
      for (const body of bodies) {
        const query = parseAggregateBody(aggregate, body);
        const message = JSON.parse(renderAggregateSdmx(answerOf(generation, aggregate, query))) as Message;
        valid(message);
        checkKeyRules(message);
      }
    }
  });
  it('tells a suppressed measure (S) from one no row gave a value (M), per measure, as JSON and CSV do', async () => {
    const catalog = testCatalog();
    // Group a: four rows, one amount (a mean of one value: suppressed at the minimum of 3) and no size at all.
    // Group b: three rows, three amounts and three sizes: nothing to mark.
    const items: ItemRow[] = [1, 2, 3, 4, 5, 6, 7].map((id) => ({
      id,
      cat: id <= 4 ? 'a' : 'b',
      flag: null,
      size: id <= 4 ? null : id,
      amount: id === 1 || id > 4 ? id * 10 : null,
      owner_id: 'o1',
    }));
    const generation = await testGeneration(catalog, items, [{ owner_id: 'o1', region: 'north' }]);
    const aggregate = testAggregate(catalog, 'masking');
    const query = parseAggregateBody(aggregate, {
      group_by: ['cat'],
      measures: ['rows', 'mean', 'owner_sizes'],
    });
    const response = answerOf(generation, aggregate, query);
    const json = JSON.parse(renderAggregateJson(response)).observations;
    assert.deepEqual(json[0], {
      cat: 'a',
      rows: 4,
      mean: null,
      owner_sizes: null,
      attributes: { mean$status: 'S' },
    });
    assert.deepEqual(json[1], { cat: 'b', rows: 3, mean: 60, owner_sizes: 18 });
    assert.match(renderAggregateCsv(response).body, /\r\na,4,,,,S,\r\nb,3,60,18,,,\r\n$/);

    const message = JSON.parse(renderAggregateSdmx(response)) as Message;
    valid(message);
    checkKeyRules(message);
    const attributes = message.data.structures[0]?.attributes?.observation ?? [];
    assert.deepEqual(
      attributes.map((attribute) => [attribute.id, attribute.relationship.measures]),
      [
        ['OBS_STATUS', undefined],
        ['OBS_STATUS_rows', ['rows']],
        ['OBS_STATUS_mean', ['mean']],
        ['OBS_STATUS_owner_sizes', ['owner_sizes']],
      ],
    );
    const codes = (key: string) => {
      const values = message.data.dataSets[0]?.observations[key] ?? [];
      return values
        .slice(3)
        .map((index, a) => (index === null ? null : attributes[a]?.values[index as number]?.id));
    };
    // The null mean of a is suppressed, its null sum of sizes missing: the two nulls are told apart.
    assert.deepEqual(message.data.dataSets[0]?.observations['0']?.slice(0, 3), [4, null, null]);
    // First the observation's OBS_STATUS (S: a measure is suppressed), then one per measure.
    assert.deepEqual(codes('0'), ['S', null, 'S', 'M']);
    assert.deepEqual(codes('1'), [null, null, null, null]);
  });
});
