// XLSX sheets whose markup the decoder would spend minutes on: tags left open, and tags or text runs megabytes
// long. Each is a few KB zipped, far under the file size limit; the load fails at once instead.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runToEnd } from '../../../test/helpers/run-to-end.ts';
import {
  type Field,
  header,
  load,
  loadError,
  row,
  served,
  table,
  text,
  useWorkbookDir,
  workbookDir,
  writeWorkbook,
} from './xlsx-workbook-test-support.ts';

useWorkbookDir();

const FIELDS: Field[] = [['id', 'string']];
const ROWS = header('id') + row(2, text('A2', 'a'));

/**
 * Loads the workbook in a process of its own, stopped after 20 s (a guard, not a timing): the decoder reads a
 * sheet in chunks and read such a tag again with each one, for over a minute with the event loop blocked.
 */
function loadApart(name: string): { code?: string; message?: string } {
  const script = `import { openFileSource } from ${JSON.stringify(new URL('../sources/open-file-source.ts', import.meta.url).href)};
    const limits = { baseDir: ${JSON.stringify(workbookDir())}, maxFileBytes: 1e9, xlsxMaxFileBytes: 1e9 };
    const outcome = await openFileSource('households', { type: 'file', path: ${JSON.stringify(name)} }, limits)
      .then(() => ({}), (error) => ({ code: error.code, message: error.message }));
    process.stdout.write(JSON.stringify(outcome));`;
  return JSON.parse(runToEnd(script)) as { code?: string; message?: string };
}

describe('buildTable from XLSX markup the decoder cannot read in time', () => {
  it('refuses a sheet of unclosed mergeCell tags as not well-formed', async () => {
    // 2.2 MB of `<mergeCell ` left open, then the same run ended by a whole tag, which a parser reading only tag
    // names takes as one long tag.
    const torn = '<mergeCell '.repeat(200_000);
    await writeWorkbook('torn-tags.xlsx', { rows: ROWS, afterSheetData: `<mergeCells>${torn}</mergeCells>` });
    await writeWorkbook('torn-closed.xlsx', {
      rows: ROWS,
      afterSheetData: `<mergeCells>${torn}<mergeCell ref="A1:A1"/></mergeCells>`,
    });
    for (const name of ['torn-tags.xlsx', 'torn-closed.xlsx']) {
      const error = loadApart(name);
      assert.equal(error.code, 'ingest.parse_error', name);
      assert.match(error.message ?? '', /sheet "Data" is not well-formed XML/, name);
    }
  });

  it('refuses a tag or a text run megabytes long, and reads text longer than Excel writes', async () => {
    await writeWorkbook('long-tag.xlsx', {
      rows: `${ROWS}<row r="3"><c r="A3" x="${'a'.repeat(2_000_000)}"><v>1</v></c></row>`,
    });
    const tag = loadApart('long-tag.xlsx');
    assert.equal(tag.code, 'ingest.parse_error');
    assert.match(
      tag.message ?? '',
      /sheet "Data" has a tag of 2000\d{3} characters, over the limit of 262144/,
    );

    await writeWorkbook('long-text.xlsx', { rows: header('id') + row(2, text('A2', 'x'.repeat(3_000_000))) });
    const error = await loadError(table('long-text.xlsx', FIELDS));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(
      error.message,
      /sheet "Data" has a text run of 3000000 characters, over the limit of 2097152/,
    );

    // A cell holds at most 32,767 characters in Excel; other writers may go further, and that is still read.
    const long = 'x'.repeat(200_000);
    await writeWorkbook('longer-cell.xlsx', { rows: header('id') + row(2, text('A2', long)) });
    assert.deepEqual(served(await load(table('longer-cell.xlsx', FIELDS))), [{ id: long }]);
  });
});
