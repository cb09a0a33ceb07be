import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import Papa from 'papaparse';
import { type ItemRow, testAggregate, testCatalog, testGeneration } from './aggregate-test-support.ts';
import { computeAggregate } from './compute-aggregate.ts';
import { parseAggregateBody } from './parse-aggregate-request.ts';
import { neutralise, renderAggregateCsv } from './render-aggregate-csv.ts';
import { renderAggregateJson } from './render-aggregate-json.ts';
import type { AggregateResponse } from './result-metadata.ts';

const catalog = testCatalog();
const LINKS = { self: 's', structure: 'st', json: 'j', csv: 'c', sdmx: 'x' };

async function answer(
  aggregateId: string,
  cats: readonly (string | null)[],
  body: Record<string, unknown>,
): Promise<AggregateResponse> {
  const items: ItemRow[] = cats.map((cat, i) => ({
    id: i + 1,
    cat,
    flag: i % 2 === 0,
    size: null,
    amount: -i,
    owner_id: null,
  }));
  const generation = await testGeneration(catalog, items, []);
  const aggregate = testAggregate(catalog, aggregateId);
  const query = parseAggregateBody(aggregate, body);
  return {
    aggregate,
    query,
    result: computeAggregate(generation, aggregate, query),
    computedAt: Date.UTC(2026, 0, 2),
    asOf: Date.UTC(2026, 0, 1),
    digest: 'abc',
    links: LINKS,
  };
}

async function render(aggregateId: string, cats: readonly (string | null)[], body: Record<string, unknown>) {
  return renderAggregateCsv(await answer(aggregateId, cats, body));
}

/** A CSV body read by an RFC 4180 reader of another project (Papa Parse), without its closing empty line. */
function readCsv(body: string): string[][] {
  const parsed = Papa.parse<string[]>(body, { delimiter: ',', newline: '\r\n' });
  assert.deepEqual(parsed.errors, []);
  assert.deepEqual(parsed.data.at(-1), [''], 'the body ends with CRLF');
  return parsed.data.slice(0, -1);
}

/** What docs/relay-api.md tells a client to do with a cell: drop the one `'` the relay put before it. */
const restore = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);

/** Characters a CSV writer or a spreadsheet treats specially, mixed with any other code point. */
const awkwardText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', "'", '"', ',', ' ', '\u2028', '\uFEFF', '0', 'e'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 6,
});

describe('renderAggregateCsv', () => {
  it('neutralises text a spreadsheet would run as a formula, and quotes as RFC 4180', async () => {
    const formulas = ['=SUM(A1:A9)', '+1', '-2', '@cmd', '\tx', '\rx', 'plain, "quoted"', 'a=b'];
    const csv = await render('open', formulas, { group_by: ['cat'], measures: ['rows', 'total'] });
    const rows = parse(csv.body, { relax_column_count: false }) as string[][];
    // `amount` may be empty, so even where small groups are omitted a total can be suppressed on its own.
    assert.deepEqual(rows[0], ['cat', 'rows', 'total', 'rows$status', 'total$status']);
    const cats = rows.slice(1).map((row) => row[0]);
    assert.deepEqual(
      [...cats].sort(),
      ["'\tx", "'\rx", "'+1", "'-2", "'=SUM(A1:A9)", "'@cmd", 'a=b', 'plain, "quoted"'].sort(),
    );
    // Numbers are data, not formulas: a negative total stays a plain number.
    assert.ok(rows.slice(1).some((row) => row[2]?.startsWith('-') && !row[2].startsWith("'")));
    assert.ok(csv.body.includes('\r\n'), 'CRLF record delimiters');
    assert.ok(csv.body.includes('"plain, ""quoted"""'));
  });

  it('quotes a cell holding a lone LF or CR, where readers would otherwise start a new record', async () => {
    const cats = ['a\n=cmd', 'b\r@x', '\rc'];
    const csv = await render('open', cats, { group_by: ['cat'], measures: ['rows'] });
    // Outside quoted cells the only line breaks are the CRLF record delimiters.
    const unquoted = csv.body.replace(/"(?:[^"]|"")*"/g, '');
    assert.doesNotMatch(unquoted, /\r(?!\n)|(?<!\r)\n/);
    assert.deepEqual(parse(csv.body), [
      ['cat', 'rows'],
      ["'\rc", '1'],
      ['a\n=cmd', '1'],
      ['b\r@x', '1'],
    ]);
  });

  it('adds <measure>$status columns when masking, with S on masked rows and empty measures', async () => {
    const csv = await render('masking', ['a', 'a', 'a', 'b'], {
      group_by: ['cat', 'flag'],
      measures: ['rows', 'mean'],
    });
    const rows = parse(csv.body) as string[][];
    assert.deepEqual(rows[0], ['cat', 'flag', 'rows', 'mean', 'rows$status', 'mean$status']);
    // a/true has 2 rows, a/false and b/false 1 each: all below 3, so masked; booleans print as words.
    assert.deepEqual(rows.slice(1), [
      ['a', 'false', '', '', 'S', 'S'],
      ['a', 'true', '', '', 'S', 'S'],
      ['b', 'false', '', '', 'S', 'S'],
    ]);
    const masked = await render('masking', ['a', 'a', 'a', 'a', 'a', 'a'], {
      group_by: ['cat'],
      measures: ['rows'],
    });
    assert.deepEqual(parse(masked.body), [
      ['cat', 'rows', 'rows$status'],
      ['a', '6', ''],
    ]);
  });

  it('puts disclosure, freshness and completeness in headers, and writes the header row for no rows', async () => {
    const csv = await render('omitting', ['a', 'b'], { group_by: ['cat'], measures: ['rows'] });
    assert.deepEqual(parse(csv.body), [['cat', 'rows']]);
    assert.deepEqual(JSON.parse(csv.headers['x-ambit-disclosure-control'] ?? ''), {
      method: ['k-anonymity'],
      min_cell_size: 3,
      suppression: 'omit',
      suppressed_observations: 2,
      query_budget: { tracked: false, scope: 'none' },
    });
    assert.deepEqual(JSON.parse(csv.headers['x-ambit-freshness'] ?? ''), {
      computed_at: '2026-01-02T00:00:00.000Z',
      as_of: '2026-01-01T00:00:00.000Z',
    });
    assert.deepEqual(JSON.parse(csv.headers['x-ambit-completeness'] ?? ''), {
      complete: false,
      truncated: false,
    });
  });

  it('gives back every text value of the JSON answer, row by row, once one leading apostrophe is dropped', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(awkwardText), { minLength: 1, maxLength: 8 }), async (cats) => {
        const response = await answer('open', cats, { group_by: ['cat'], measures: ['rows', 'total'] });
        const json = JSON.parse(renderAggregateJson(response)).observations as Record<string, unknown>[];
        const rows = readCsv(renderAggregateCsv(response).body);
        assert.deepEqual(rows[0], ['cat', 'rows', 'total', 'rows$status', 'total$status']);
        assert.deepEqual(
          rows.slice(1).map(([cat, rowCount, total]) => [restore(cat as string), rowCount, total]),
          json.map((o) => [o.cat ?? '', String(o.rows), o.total === null ? '' : String(o.total)]),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('writes a text value that starts with an apostrophe apart from the formula it would otherwise look like', async () => {
    const csv = await render('open', ['=1+2', "'=1+2", "'plain"], { group_by: ['cat'], measures: ['rows'] });
    assert.deepEqual(readCsv(csv.body), [
      ['cat', 'rows'],
      ["''=1+2", '1'],
      ["''plain", '1'],
      ["'=1+2", '1'],
    ]);
  });

  it('neutralise leaves numbers, booleans, null and harmless text alone', () => {
    assert.equal(neutralise(-3), -3);
    assert.equal(neutralise(true), true);
    assert.equal(neutralise(null), null);
    assert.equal(neutralise('north'), 'north');
    assert.equal(neutralise('-north'), "'-north");
  });
});
