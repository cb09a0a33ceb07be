// Test helpers: a small two-table dataset (items belonging to groups) built in memory as catalogue and generation.
import { buildCatalog } from '../catalog/build-catalog.ts';
import type { Catalog } from '../catalog/catalog.ts';
import { relayConfigSchema } from '../config/schema.ts';
import { buildTable } from '../store/build-table.ts';
import { createGeneration, type Generation, tableKey } from '../store/generation.ts';
import type { CatalogAggregate } from './aggregate-model.ts';

export interface ItemRow {
  readonly id: number;
  readonly cat: string | null;
  readonly flag: boolean | null;
  readonly size: number | null;
  readonly amount: number | null;
  readonly owner_id: string | null;
}

export interface OwnerRow {
  readonly owner_id: string;
  readonly region: string | null;
}

/** Dimensions, measures and filters over items; `suppression` and `min` vary per aggregate. */
function aggregateConfig(id: string, suppression: 'omit' | 'mask', minCellSize: number) {
  return {
    id,
    source_entity: 'items',
    dimensions: [
      { id: 'cat', field: 'cat' },
      { id: 'flag', field: 'flag' },
      { id: 'size', field: 'size' },
      { id: 'region', field: 'owner.region' },
    ],
    indicators: [
      { id: 'rows', function: 'count' },
      { id: 'amounts', function: 'count', column: 'amount' },
      { id: 'total', function: 'sum', column: 'amount' },
      { id: 'mean', function: 'avg', column: 'amount' },
      { id: 'low', function: 'min', column: 'amount' },
      { id: 'high', function: 'max', column: 'amount' },
      { id: 'middle', function: 'median', column: 'amount' },
      { id: 'spread', function: 'stddev', column: 'amount' },
      { id: 'cats', function: 'count_distinct', column: 'cat' },
      { id: 'owner_sizes', function: 'sum', column: 'size' },
      { id: 'mean_rounded', function: 'avg', column: 'amount', decimals: 2 },
    ],
    default_group_by: ['cat'],
    allowed_filters: [
      { field: 'cat', ops: ['eq', 'in'] },
      { field: 'amount', ops: ['gte', 'lte', 'between'] },
      { field: 'size', ops: ['eq', 'in', 'gte', 'lte', 'between'] },
      { field: 'owner.region', ops: ['eq', 'in'] },
    ],
    disclosure_control: { min_cell_size: minCellSize, suppression },
  };
}

export const TEST_AGGREGATES = [
  { id: 'open', suppression: 'omit', min: 1 },
  { id: 'omitting', suppression: 'omit', min: 3 },
  { id: 'masking', suppression: 'mask', min: 3 },
] as const;

/** `owners` may get its own rows scope and require Data-Purpose, to test rules on entities reached by a path. */
export function testCatalog(owners: { readScope?: string; requirePurpose?: boolean } = {}): Catalog {
  const config = relayConfigSchema.parse({
    server: { bind: '127.0.0.1:1' },
    catalog: { title: 't', base_url: 'https://relay.test', publisher: 'p' },
    auth: { mode: 'api_key', api_keys: [] },
    audit: { sink: 'stdout', hash_secret_env: 'X' },
    datasets: [
      {
        id: 'shop',
        title: 'Shop',
        sensitivity: 'internal',
        tables: [
          {
            id: 'items_table',
            source: { type: 'file', path: 'items.csv' },
            primary_key: 'id',
            schema: {
              fields: [
                { name: 'id', type: 'integer', nullable: false },
                { name: 'cat', type: 'string' },
                { name: 'flag', type: 'boolean' },
                { name: 'size', type: 'integer' },
                { name: 'amount', type: 'number' },
                { name: 'owner_id', type: 'string' },
              ],
            },
          },
          {
            id: 'owners_table',
            source: { type: 'file', path: 'owners.csv' },
            primary_key: 'owner_id',
            schema: {
              fields: [
                { name: 'owner_id', type: 'string', nullable: false },
                { name: 'region', type: 'string' },
              ],
            },
          },
        ],
        entities: [
          {
            name: 'items',
            table: 'items_table',
            relationships: [{ name: 'owner', kind: 'belongs_to', target: 'owners', foreign_key: 'owner_id' }],
          },
          {
            name: 'owners',
            table: 'owners_table',
            access: owners.readScope === undefined ? {} : { read_scope: owners.readScope },
            api: { require_purpose_header: owners.requirePurpose ?? false },
          },
        ],
        aggregates: TEST_AGGREGATES.map((a) => aggregateConfig(a.id, a.suppression, a.min)),
      },
    ],
  });
  return buildCatalog(config);
}

export function testAggregate(catalog: Catalog, id: string): CatalogAggregate {
  const aggregate = catalog.datasets.get('shop')?.aggregates.get(id);
  if (!aggregate) throw new TypeError(`no test aggregate ${id}`);
  return aggregate;
}

export async function testGeneration(
  catalog: Catalog,
  items: readonly ItemRow[],
  owners: readonly OwnerRow[],
): Promise<Generation> {
  const dataset = catalog.config.datasets[0];
  if (!dataset) throw new TypeError('no dataset');
  const tables = new Map();
  for (const [config, rows] of [
    [dataset.tables[0], items],
    [dataset.tables[1], owners],
  ] as const) {
    if (!config) throw new TypeError('no table');
    const columns = config.schema.fields.map((field) => field.name);
    const table = await buildTable({
      config,
      columns,
      batches: (async function* () {
        yield rows.map((row) =>
          columns.map((name) => (row as unknown as Record<string, unknown>)[name] ?? null),
        );
      })(),
      excelSerials: false,
      version: `v-${rows.length}`,
      loadedAt: 0,
      byteSize: 1,
    });
    tables.set(tableKey('shop', config.id), table);
  }
  return createGeneration('test', 0, tables);
}
