// Demo data generator: seeded PRNG, byte-stable output matching demo/data/, referential integrity.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import readXlsxFile from 'read-excel-file/node';
import writeXlsxFile from 'write-excel-file/node';
import { generateDemoData } from '../generate-demo-data.ts';
import { buildDemoRecords } from './build-demo-records.ts';
import { normalizeZipTimestamps } from './normalize-zip-timestamps.ts';
import { seededRandom } from './seeded-random.ts';

const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'data');

describe('seededRandom', () => {
  it('repeats the same sequence for the same seed and differs for another seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const seqA = Array.from({ length: 5 }, () => a.next());
    assert.deepEqual(
      seqA,
      Array.from({ length: 5 }, () => b.next()),
    );
    assert.notDeepEqual(
      seqA,
      Array.from({ length: 5 }, () => c.next()),
    );
  });

  it('keeps int() inside its inclusive bounds and never picks a zero-weight entry', () => {
    const random = seededRandom(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const value = random.int(3, 6);
      assert.ok(value >= 3 && value <= 6);
      seen.add(value);
      assert.notEqual(
        random.weighted([
          ['never', 0],
          ['always', 1],
        ] as const),
        'never',
      );
    }
    assert.deepEqual([...seen].sort(), [3, 4, 5, 6]);
  });

  it('refuses to pick from an empty list', () => {
    assert.throws(() => seededRandom(1).pick([]), RangeError);
  });
});

describe('normalizeZipTimestamps', () => {
  it('sets every entry to 1980-01-01 and leaves the workbook readable', async () => {
    const zip = normalizeZipTimestamps(await writeXlsxFile([['name'], ['x']]).toBuffer());
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    let headers = 0;
    for (let offset = 0; offset + 4 <= zip.byteLength; offset++) {
      const signature = view.getUint32(offset, true);
      if (signature === 0x04034b50 || signature === 0x02014b50) {
        const at = signature === 0x04034b50 ? 10 : 12;
        assert.equal(view.getUint16(offset + at, true), 0);
        assert.equal(view.getUint16(offset + at + 2, true), 0x21);
        headers++;
      }
    }
    assert.ok(headers >= 2);
    const sheets = await readXlsxFile(Buffer.from(zip));
    assert.deepEqual(sheets[0]?.data, [['name'], ['x']]);
  });

  it('rejects bytes that are not a ZIP archive', () => {
    assert.throws(() => normalizeZipTimestamps(new Uint8Array(64)), /end of central directory/);
  });
});

describe('generateDemoData', () => {
  it('regenerates demo/data byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-demo-data-'));
    try {
      const lines: string[] = [];
      await generateDemoData(dir, (line) => lines.push(line));
      const names = readdirSync(dir).sort();
      assert.deepEqual(names, ['civil_registry.csv', 'health_facilities.parquet', 'social_protection.xlsx']);
      for (const name of names) {
        const fresh = readFileSync(join(dir, name));
        assert.ok(fresh.byteLength < 100 * 1024, `${name} stays commit-sized`);
        assert.ok(fresh.equals(readFileSync(join(DATA_DIR, name))), `${name} differs: rerun the generator`);
      }
      assert.match(lines.at(-1) ?? '', /^rows: persons 400, households 120/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('buildDemoRecords', () => {
  const records = buildDemoRecords(seededRandom(42));

  it('keeps every cross-reference resolvable', () => {
    const personIds = new Set(records.persons.map((p) => p.person_id));
    const householdIds = new Set(records.households.map((h) => h.household_id));
    assert.equal(new Set(records.persons.map((p) => p.national_id)).size, records.persons.length);
    assert.ok(records.members.every((m) => householdIds.has(m.household_id) && personIds.has(m.person_id)));
    assert.ok(records.payments.every((p) => householdIds.has(p.household_id)));
    assert.ok(records.households.every((h) => personIds.has(h.head_person_id)));
  });

  it('leaves some households without members and uses uneven districts', () => {
    const withMembers = new Set(records.members.map((m) => m.household_id));
    assert.ok(records.households.some((h) => !withMembers.has(h.household_id)));
    const perDistrict = new Map<string, number>();
    for (const h of records.households) perDistrict.set(h.district, (perDistrict.get(h.district) ?? 0) + 1);
    assert.equal(perDistrict.size, 6);
    assert.ok(Math.max(...perDistrict.values()) > 3 * Math.min(...perDistrict.values()));
  });

  it('rounds map coordinates to two decimals and amounts to cents', () => {
    for (const f of records.facilities) {
      assert.equal(f.map_latitude, Number(f.exact_latitude.toFixed(2)));
      assert.equal(f.map_longitude, Number(f.exact_longitude.toFixed(2)));
    }
    assert.ok(records.payments.every((p) => Number(p.amount.toFixed(2)) === p.amount));
  });
});
