// Serialises the demo records to CSV (csv-stringify), XLSX (write-excel-file) and Parquet (hyparquet-writer).
import { stringify } from 'csv-stringify/sync';
import { parquetWriteBuffer, type SchemaElement } from 'hyparquet-writer';
import writeXlsxFile, { type Cell, type Row } from 'write-excel-file/node';
import type { DemoRecords } from './build-demo-records.ts';
import { normalizeZipTimestamps } from './normalize-zip-timestamps.ts';

export interface DemoFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

type Scalar = string | number | boolean | null;

export async function serializeDemoFiles(records: DemoRecords): Promise<DemoFile[]> {
  return [
    { name: 'civil_registry.csv', bytes: civilRegistryCsv(records) },
    { name: 'social_protection.xlsx', bytes: await socialProtectionXlsx(records) },
    { name: 'health_facilities.parquet', bytes: healthFacilitiesParquet(records) },
  ];
}

function civilRegistryCsv({ persons }: DemoRecords): Uint8Array {
  const text = stringify(
    persons.map((p) => ({ ...p, deceased: p.deceased ? 'true' : 'false' })),
    { header: true, record_delimiter: 'unix' },
  );
  return new TextEncoder().encode(text);
}

async function socialProtectionXlsx({ households, members, payments }: DemoRecords): Promise<Uint8Array> {
  const dateColumns = new Set(['enrolled_on', 'paid_on']);
  // Dates become real date cells: a UTC midnight Date with a date number format (an integer serial number).
  const cell = (column: string, value: Scalar): Cell => {
    if (value === null) return null;
    if (dateColumns.has(column) && typeof value === 'string') {
      return { value: new Date(`${value}T00:00:00Z`), type: Date, format: 'yyyy-mm-dd' };
    }
    if (column === 'amount' && typeof value === 'number') return { value, type: Number, format: '0.00' };
    return value;
  };
  const sheet = <T extends object>(name: string, rows: T[]) => {
    const columns = Object.keys(rows[0] ?? {});
    const data: Row[] = [
      columns,
      ...rows.map((row) => columns.map((c) => cell(c, (row as Record<string, Scalar>)[c] ?? null))),
    ];
    return { sheet: name, data, stickyRowsCount: 1 };
  };
  const buffer = await writeXlsxFile([
    sheet('Households', households),
    sheet('Members', members),
    sheet('Payments', payments),
  ]).toBuffer();
  return normalizeZipTimestamps(buffer);
}

/** Parquet types: strings UTF8, beds INT32 (a JS number on read, not a BigInt), dates INT32 DATE, coordinates DOUBLE. */
function healthFacilitiesParquet({ facilities }: DemoRecords): Uint8Array {
  const string = (name: string, optional = false): SchemaElement => ({
    name,
    type: 'BYTE_ARRAY',
    converted_type: 'UTF8',
    logical_type: { type: 'STRING' },
    repetition_type: optional ? 'OPTIONAL' : 'REQUIRED',
  });
  const double = (name: string): SchemaElement => ({ name, type: 'DOUBLE', repetition_type: 'REQUIRED' });
  const schema: SchemaElement[] = [
    { name: 'root', num_children: 12 },
    string('facility_id'),
    string('facility_name'),
    string('district'),
    string('facility_type'),
    string('ownership'),
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
    double('map_latitude'),
    double('map_longitude'),
    double('exact_latitude'),
    double('exact_longitude'),
    string('internal_notes', true),
  ];
  const column = <K extends keyof DemoRecords['facilities'][number]>(name: K) => ({
    name,
    data: facilities.map((f) => (name === 'opened_on' ? new Date(`${f.opened_on}T00:00:00Z`) : f[name])),
  });
  const buffer = parquetWriteBuffer({
    columnData: schema
      .slice(1)
      .map((element) => column(element.name as keyof DemoRecords['facilities'][number])),
    schema,
    createdBy: 'ambit demo data generator',
  });
  return new Uint8Array(buffer);
}
