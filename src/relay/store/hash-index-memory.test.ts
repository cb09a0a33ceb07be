// An equality index over a column of distinct values takes a few dozen bytes a row, not an object per value: the
// first read filtering on such a column (a national identifier, say) builds it, outside any load's heap guard,
// and an index several times the size of its column would end the process on V8's "heap out of memory".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runToEnd } from '../../../test/helpers/run-to-end.ts';

const ROWS = 400_000;

describe('the equality index of a column of distinct values', () => {
  it('is built in a 96 MiB heap for 400,000 rows of text and of integers', () => {
    const module = JSON.stringify(new URL('./table-snapshot.ts', import.meta.url).href);
    const script = `
      const { createTableSnapshot } = await import(${module});
      const { lookup } = await import(${JSON.stringify(new URL('./hash-index.ts', import.meta.url).href)});
      const n = ${ROWS};
      const ids = new Float64Array(n);
      const codes = new Array(n);
      for (let i = 0; i < n; i++) {
        ids[i] = i * 7;
        codes[i] = 'c' + i.toString(36).padStart(9, '0');
      }
      const columns = new Map([
        ['id', { kind: 'numeric', type: 'integer', values: ids, nulls: new Uint8Array(n) }],
        ['code', { kind: 'text', type: 'string', values: codes }],
      ]);
      const table = createTableSnapshot({
        config: { id: 't', primary_key: 'id' }, rowCount: n, columns, version: 'v', loadedAt: 0, byteSize: 0,
      });
      const found = [
        [...lookup(table.hashIndex('code'), codes[12345])],
        [...lookup(table.hashIndex('id'), 7 * 54321)],
        [...lookup(table.hashIndex('code'), 'absent')],
      ];
      process.stdout.write(JSON.stringify(found));`;
    const out = runToEnd(script, ['--max-old-space-size=96'], 60_000);
    assert.deepEqual(JSON.parse(out), [[12345], [54321], []]);
  });
});
