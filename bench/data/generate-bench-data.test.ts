// Tests for the bench data generator's cheap guarantees: stable file names and codes, and no regeneration.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  FACILITIES_1M_FILE,
  generateBenchData,
  householdCode,
  RECORDS_100K_FILE,
} from './generate-bench-data.ts';

describe('generateBenchData', () => {
  it('leaves files that already exist untouched', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-bench-data-'));
    try {
      writeFileSync(join(dir, RECORDS_100K_FILE), 'kept');
      writeFileSync(join(dir, FACILITIES_1M_FILE), 'kept too');
      const files = generateBenchData(dir);
      assert.deepEqual(files, {
        records100k: join(dir, RECORDS_100K_FILE),
        facilities1m: join(dir, FACILITIES_1M_FILE),
      });
      assert.equal(readFileSync(files.records100k, 'utf8'), 'kept');
      assert.equal(readFileSync(files.facilities1m, 'utf8'), 'kept too');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('householdCode', () => {
  it('pads to five digits so codes sort in numeric order', () => {
    assert.equal(householdCode(0), 'HH00000');
    assert.equal(householdCode(4242), 'HH04242');
    assert.ok(householdCode(999) < householdCode(1000));
  });
});
