// Reads the demo data files directly (not through the relay's loaders) so tests compute expected answers independently.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { readSheet } from 'read-excel-file/node';
import { DEMO_DIR } from '../helpers/relay-harness.ts';

export type Row = Record<string, string | number | boolean | null>;

export interface DemoData {
  /** Public rows of each entity, as the relay should render them, in primary-key order. */
  readonly persons: readonly Row[];
  readonly households: readonly Row[];
  readonly members: readonly Row[];
  readonly payments: readonly Row[];
  readonly facilities: readonly Row[];
  /** Distinctive values of the storage-only columns; none may appear in any response body. */
  readonly storageValues: readonly string[];
}

export const STORAGE_ONLY_COLUMNS = [
  'street_address',
  'phone',
  'registrar_notes',
  'case_notes',
  'bank_account_hint',
  'exact_latitude',
  'exact_longitude',
  'internal_notes',
] as const;

let cached: Promise<DemoData> | undefined;

export function readDemoData(): Promise<DemoData> {
  cached ??= load();
  return cached;
}

async function load(): Promise<DemoData> {
  const storage = new Set<string>();
  const keep = (value: unknown) => {
    if (typeof value === 'string' && value.trim().length >= 4) storage.add(value);
  };

  const csv = parse(readFileSync(join(DEMO_DIR, 'data/civil_registry.csv')), { columns: true }) as Record<
    string,
    string
  >[];
  const persons = csv.map((raw) => {
    keep(raw.street_address);
    keep(raw.phone);
    keep(raw.registrar_notes);
    return {
      person_id: text(raw.person_id),
      national_id: text(raw.national_id),
      given_name: text(raw.given_name),
      family_name: text(raw.family_name),
      birth_date: text(raw.birth_date),
      sex: text(raw.sex),
      district: text(raw.district),
      deceased: raw.deceased === 'true',
    };
  });

  const workbook = readFileSync(join(DEMO_DIR, 'data/social_protection.xlsx'));
  const households = (await sheetObjects(workbook, 'Households')).map((raw) => {
    keep(raw.case_notes);
    return {
      household_id: text(raw.household_id),
      district: text(raw.district),
      municipality: text(raw.municipality),
      household_size: raw.household_size as number,
      poverty_band: text(raw.poverty_band),
      enrollment_status: text(raw.enrollment_status),
      enrolled_on: day(raw.enrolled_on),
      head_of_household_person_id: text(raw.head_person_id),
    };
  });
  const members = (await sheetObjects(workbook, 'Members')).map((raw) => {
    keep(raw.bank_account_hint);
    return {
      member_id: text(raw.member_id),
      household_id: text(raw.household_id),
      person_id: text(raw.person_id),
      role: text(raw.role),
      age_band: text(raw.age_band),
    };
  });
  const payments = (await sheetObjects(workbook, 'Payments')).map((raw) => ({
    payment_id: text(raw.payment_id),
    household_id: text(raw.household_id),
    cycle: text(raw.cycle),
    amount: raw.amount as number,
    paid_on: day(raw.paid_on),
    payment_status: text(raw.payment_status),
    payment_channel: text(raw.payment_channel),
  }));

  const parquet = await parquetReadObjects({
    file: await asyncBufferFromFile(join(DEMO_DIR, 'data/health_facilities.parquet')),
    compressors,
  });
  const facilities = parquet.map((raw) => {
    keep(raw.internal_notes);
    // Exact coordinates leak only if they differ from the published rounded ones.
    for (const [exact, rounded] of [
      [raw.exact_latitude, raw.map_latitude],
      [raw.exact_longitude, raw.map_longitude],
    ]) {
      if (String(exact) !== String(rounded)) storage.add(String(exact));
    }
    return {
      facility_id: text(raw.facility_id),
      facility_name: text(raw.facility_name),
      district: text(raw.district),
      facility_type: text(raw.facility_type),
      ownership: text(raw.ownership),
      beds: raw.beds as number,
      opened_on: day(raw.opened_on),
      latitude: raw.map_latitude as number,
      longitude: raw.map_longitude as number,
    };
  });

  // Primary-key order is plain code-unit order of the key text.
  const byKey = (key: string) => (a: Row, b: Row) => {
    const [x, y] = [String(a[key]), String(b[key])];
    return x < y ? -1 : x > y ? 1 : 0;
  };
  return {
    persons: persons.sort(byKey('person_id')),
    households: households.sort(byKey('household_id')),
    members: members.sort(byKey('member_id')),
    payments: payments.sort(byKey('payment_id')),
    facilities: facilities.sort(byKey('facility_id')),
    storageValues: [...storage],
  };
}

async function sheetObjects(workbook: Buffer, sheet: string): Promise<Record<string, unknown>[]> {
  const [header = [], ...rows] = (await readSheet(workbook, sheet)) as unknown[][];
  return rows.map((cells) => Object.fromEntries(header.map((name, i) => [String(name), cells[i] ?? null])));
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new TypeError(`expected text, got ${String(value)}`);
  return value;
}

/** A date cell (UTC midnight) or empty cell as the API's `YYYY-MM-DD` or null. */
function day(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  throw new TypeError(`expected a date, got ${String(value)}`);
}
