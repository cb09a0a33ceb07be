// Writes the seeded aggregate bench data: 1,000,000 payments over 10 districts and 6 months, as Parquet.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parquetWriteBuffer, type SchemaElement } from 'hyparquet-writer';
import { seededRandom } from '../../demo/generator/seeded-random.ts';
import { BENCH_DATA_DIR } from '../data/generate-bench-data.ts';

export const PAYMENTS_1M_FILE = 'payments-1m.parquet';
export const PAYMENT_ROWS = 1_000_000;
/** 10 districts x 6 months = 60 groups when grouped by both. */
export const DISTRICTS = [
  'north_hills',
  'river_bend',
  'east_plain',
  'west_coast',
  'lake_side',
  'old_town',
  'new_town',
  'mountain_pass',
  'green_valley',
  'sun_coast',
] as const;
export const MONTHS = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05', '2026-06'] as const;

/** Generates the file unless it already exists; the bytes are identical on every run. */
export function generateAggregateData(outDir: string = BENCH_DATA_DIR): string {
  mkdirSync(outDir, { recursive: true });
  const path = join(outDir, PAYMENTS_1M_FILE);
  if (!existsSync(path)) {
    const partial = `${path}.partial`;
    writeFileSync(partial, paymentsParquet());
    renameSync(partial, path);
  }
  return path;
}

function paymentsParquet(): Uint8Array {
  const random = seededRandom(20_260_601);
  const ids = new Int32Array(PAYMENT_ROWS);
  const districts: string[] = new Array(PAYMENT_ROWS);
  const months: string[] = new Array(PAYMENT_ROWS);
  const amounts = new Float64Array(PAYMENT_ROWS);
  const sizes = new Int32Array(PAYMENT_ROWS);
  for (let i = 0; i < PAYMENT_ROWS; i++) {
    ids[i] = i + 1;
    districts[i] = random.pick(DISTRICTS);
    months[i] = random.pick(MONTHS);
    amounts[i] = random.int(1_000, 50_000) / 100;
    sizes[i] = random.int(1, 12);
  }
  const int32 = (name: string): SchemaElement => ({
    name,
    type: 'INT32',
    converted_type: 'INT_32',
    logical_type: { type: 'INTEGER', bitWidth: 32, isSigned: true },
    repetition_type: 'REQUIRED',
  });
  const string = (name: string): SchemaElement => ({
    name,
    type: 'BYTE_ARRAY',
    converted_type: 'UTF8',
    logical_type: { type: 'STRING' },
    repetition_type: 'REQUIRED',
  });
  const schema: SchemaElement[] = [
    { name: 'root', num_children: 5 },
    int32('payment_id'),
    string('district'),
    string('month'),
    { name: 'amount', type: 'DOUBLE', repetition_type: 'REQUIRED' },
    int32('household_size'),
  ];
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'payment_id', data: ids },
      { name: 'district', data: districts },
      { name: 'month', data: months },
      { name: 'amount', data: amounts },
      { name: 'household_size', data: sizes },
    ],
    schema,
    createdBy: 'ambit aggregate bench data generator',
  });
  return new Uint8Array(buffer);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  console.log(`aggregate bench data ready: ${generateAggregateData()}`);
}
