// Writes the seeded bench data sets (a 100,000-row CSV and a 1,000,000-row Parquet file) into bench/data/out/.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'csv-stringify/sync';
import { parquetWriteBuffer, type SchemaElement } from 'hyparquet-writer';
import { type SeededRandom, seededRandom } from '../../demo/generator/seeded-random.ts';

export const BENCH_DATA_DIR = fileURLToPath(new URL('./out/', import.meta.url));
export const RECORDS_100K_FILE = 'records-100k.csv';
export const FACILITIES_1M_FILE = 'facilities-1m.parquet';
export const RECORD_ROWS = 100_000;
export const FACILITY_ROWS = 1_000_000;
/** Every household code appears exactly this often, so an equality filter on it returns this many rows. */
export const ROWS_PER_HOUSEHOLD = 10;

const DISTRICTS = [
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
  'red_rock',
  'pine_forest',
  'south_gate',
  'harbour',
  'high_plateau',
  'delta',
  'stone_bridge',
  'market_square',
  'airport',
  'border_lands',
] as const;
const FACILITY_TYPES = ['hospital', 'health_centre', 'health_post', 'clinic', 'dispensary', 'maternity_home'];
const GIVEN = [
  'Amara',
  'Bo',
  'Chen',
  'Dana',
  'Eli',
  'Farah',
  'Gus',
  'Hana',
  'Ines',
  'Jon',
  'Kofi',
  'Lena',
  'Mika',
];
const FAMILY = ['Abara', 'Bello', 'Costa', 'Diallo', 'Evans', 'Fofana', 'Garcia', 'Haddad', 'Ito', 'Jensen'];
const DAY_MS = 86_400_000;

export interface BenchDataFiles {
  readonly records100k: string;
  readonly facilities1m: string;
}

/** Generates each file unless it already exists; the output is identical for every run. */
export function generateBenchData(outDir: string = BENCH_DATA_DIR): BenchDataFiles {
  mkdirSync(outDir, { recursive: true });
  const records100k = join(outDir, RECORDS_100K_FILE);
  const facilities1m = join(outDir, FACILITIES_1M_FILE);
  if (!existsSync(records100k)) writeAtomically(records100k, recordsCsv(seededRandom(100_000)));
  if (!existsSync(facilities1m)) writeAtomically(facilities1m, facilitiesParquet(seededRandom(1_000_000)));
  return { records100k, facilities1m };
}

/** The household code of the `index`-th household, as it appears in the CSV. */
export function householdCode(index: number): string {
  return `HH${String(index).padStart(5, '0')}`;
}

// A partly written file must never be mistaken for a finished one on the next run.
function writeAtomically(path: string, bytes: Uint8Array): void {
  const partial = `${path}.partial`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
}

function recordsCsv(random: SeededRandom): Uint8Array {
  const households = RECORD_ROWS / ROWS_PER_HOUSEHOLD;
  const assignment = random.shuffle(Array.from({ length: RECORD_ROWS }, (_, i) => i % households));
  const rows = assignment.map((household, i) => ({
    record_id: `R${String(i + 1).padStart(7, '0')}`,
    household_code: householdCode(household),
    given_name: random.pick(GIVEN),
    family_name: random.pick(FAMILY),
    district: random.pick(DISTRICTS),
    birth_date: isoDate(Date.UTC(1940, 0, 1) + random.int(0, 30_000) * DAY_MS),
    household_size: random.int(1, 12),
    monthly_income: Math.round(random.next() * 250_000) / 100,
    enrolled: random.chance(0.6) ? 'true' : 'false',
  }));
  return new TextEncoder().encode(stringify(rows, { header: true, record_delimiter: 'unix' }));
}

function facilitiesParquet(random: SeededRandom): Uint8Array {
  const ids: string[] = new Array(FACILITY_ROWS);
  const districts: string[] = new Array(FACILITY_ROWS);
  const types: string[] = new Array(FACILITY_ROWS);
  const beds = new Int32Array(FACILITY_ROWS);
  const opened: Date[] = new Array(FACILITY_ROWS);
  const latitudes = new Float64Array(FACILITY_ROWS);
  const longitudes = new Float64Array(FACILITY_ROWS);
  const firstDay = Date.UTC(1950, 0, 1);
  for (let i = 0; i < FACILITY_ROWS; i++) {
    ids[i] = `F${String(i + 1).padStart(7, '0')}`;
    districts[i] = random.pick(DISTRICTS);
    types[i] = random.pick(FACILITY_TYPES);
    beds[i] = random.int(0, 400);
    opened[i] = new Date(firstDay + random.int(0, 27_000) * DAY_MS);
    latitudes[i] = Math.round((random.next() * 20 - 10) * 1e5) / 1e5;
    longitudes[i] = Math.round((random.next() * 20 + 20) * 1e5) / 1e5;
  }
  const string = (name: string): SchemaElement => ({
    name,
    type: 'BYTE_ARRAY',
    converted_type: 'UTF8',
    logical_type: { type: 'STRING' },
    repetition_type: 'REQUIRED',
  });
  const double = (name: string): SchemaElement => ({ name, type: 'DOUBLE', repetition_type: 'REQUIRED' });
  const schema: SchemaElement[] = [
    { name: 'root', num_children: 7 },
    string('facility_id'),
    string('district'),
    string('facility_type'),
    {
      name: 'beds',
      type: 'INT32',
      converted_type: 'INT_32',
      logical_type: { type: 'INTEGER', bitWidth: 32, isSigned: true },
      repetition_type: 'REQUIRED',
    },
    {
      name: 'opened_on',
      type: 'INT32',
      converted_type: 'DATE',
      logical_type: { type: 'DATE' },
      repetition_type: 'REQUIRED',
    },
    double('latitude'),
    double('longitude'),
  ];
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'facility_id', data: ids },
      { name: 'district', data: districts },
      { name: 'facility_type', data: types },
      { name: 'beds', data: beds },
      { name: 'opened_on', data: opened },
      { name: 'latitude', data: latitudes },
      { name: 'longitude', data: longitudes },
    ],
    schema,
    createdBy: 'ambit bench data generator',
  });
  return new Uint8Array(buffer);
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const files = generateBenchData();
  console.log(`bench data ready:\n  ${files.records100k}\n  ${files.facilities1m}`);
}
