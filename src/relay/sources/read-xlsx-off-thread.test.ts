// XLSX workbooks are decoded off the main thread: the event loop keeps turning while one loads, and whatever the
// decoder thread meets (a refused cell, a corrupt file, running out of memory, dying) fails the load with an
// ingest error rather than ending the process.
import assert from 'node:assert/strict';
import { createHook } from 'node:async_hooks';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { strToU8, zipSync } from 'fflate';
import { answerOf, createXlsxDecoder } from './decode-xlsx-in-worker.ts';
import { openFileSource } from './open-file-source.ts';
import { SourceError } from './source-error.ts';
import { rowsOf, sourceErrorOf } from './source-test-support.ts';

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ambit-xlsx-thread-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A one-sheet workbook of `rows` data rows (id, name, size); `last` replaces the cells of the last row. */
async function writeWorkbook(name: string, rows: number, last?: string): Promise<void> {
  const cells: string[] = [
    '<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c><c r="B1" t="inlineStr"><is><t>name</t></is></c><c r="C1" t="inlineStr"><is><t>size</t></is></c></row>',
  ];
  for (let r = 2; r <= rows + 1; r++) {
    const body =
      r === rows + 1 && last !== undefined
        ? last
        : `<c r="A${r}" t="inlineStr"><is><t>id-${r}</t></is></c><c r="B${r}" t="inlineStr"><is><t>name ${r}</t></is></c><c r="C${r}"><v>${r}</v></c>`;
    cells.push(`<row r="${r}">${body}</row>`);
  }
  const parts: Record<string, string> = {
    '[Content_Types].xml':
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>',
    '_rels/.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}"><sheets><sheet name="Data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': `<?xml version="1.0"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml': `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${cells.join('')}</sheetData></worksheet>`,
  };
  const entries = Object.fromEntries(Object.entries(parts).map(([path, text]) => [path, strToU8(text)]));
  await writeFile(join(dir, name), zipSync(entries));
}

const openXlsx = (name: string) =>
  openFileSource(
    'households',
    { type: 'file', path: name },
    { baseDir: dir, maxFileBytes: 1e9, xlsxMaxFileBytes: 1e9 },
  );

const FILE = {
  tableId: 'households',
  absolutePath: '/nowhere',
  displayPath: 'data.xlsx',
  byteSize: 0,
  version: '',
};
const WHOLE_SHEET = { firstRow: 1, lastRow: Infinity, firstColumn: 1, lastColumn: Infinity };

/** What a stand-in decoder thread running `code` (CommonJS) makes of a task. */
async function answerFrom(code: string): Promise<unknown> {
  const worker = new Worker(code, { eval: true });
  try {
    return await answerOf(worker, FILE, () => worker.postMessage({})).then(
      (value) => value,
      (error: unknown) => error,
    );
  } finally {
    await worker.terminate();
  }
}

/**
 * Runs `load` with an immediate always pending, and tells whether one ran after the source file was last closed
 * (its bytes all read) and before the load settled. A decode on the main thread runs from that close on in one stretch,
 * so no such turn happens before it ends.
 */
async function turnsAfterRead(load: () => Promise<unknown>): Promise<{ turned: boolean; outcome: unknown }> {
  const closes = new Set<number>();
  let read = false;
  let turned = false;
  const hook = createHook({
    init(asyncId, type) {
      if (type === 'FILEHANDLECLOSEREQ') closes.add(asyncId);
    },
    after(asyncId) {
      // The file is opened and closed once to be sized, then again to be read: the last close counts.
      if (closes.has(asyncId)) {
        read = true;
        turned = false;
      }
    },
  }).enable();
  let settled = false;
  const tick = () => {
    if (settled) return;
    if (read) turned = true;
    setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const outcome = await load().then(
      (value) => value,
      (error: unknown) => error,
    );
    return { turned, outcome };
  } finally {
    settled = true;
    hook.disable();
  }
}

describe('XLSX decoded off the main thread', () => {
  before(() => writeWorkbook('many.xlsx', 20_000));

  it('keeps the event loop turning while a workbook is decoded', async () => {
    const { turned, outcome } = await turnsAfterRead(async () => rowsOf(await openXlsx('many.xlsx')));
    assert.equal((outcome as unknown[][]).length, 20_000);
    assert.ok(turned, 'no timer ran between reading the file and the end of its decode');
  });

  it('hands the rows over a batch at a time, the event loop turning between batches', async () => {
    const source = await openXlsx('many.xlsx');
    for (const batches of [source.batches, source.columnBatches]) {
      assert.ok(batches);
      let ticks = 0;
      let done = false;
      const tick = () => {
        if (done) return;
        ticks++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const seen: number[] = [];
      try {
        for await (const _batch of batches) seen.push(ticks);
      } finally {
        done = true;
      }
      assert.equal(seen.length, 5);
      for (let index = 1; index < seen.length; index++) {
        assert.ok((seen[index] as number) > (seen[index - 1] as number), `no turn before batch ${index + 1}`);
      }
    }
  });

  it('keeps the event loop turning while a sheet is checked, and reports what the check refuses', async () => {
    await writeWorkbook('formula.xlsx', 20_000, '<c r="A20001"><f>1+1</f><v>2</v></c>');
    const { turned, outcome } = await turnsAfterRead(() => openXlsx('formula.xlsx'));
    assert.equal((outcome as { code?: string }).code, 'ingest.formula_cell');
    assert.ok(turned, 'no timer ran between reading the file and the refusal');
  });

  it('hands back the location of what the decode refuses, and the next workbook loads', async () => {
    await writeFile(join(dir, 'corrupt.xlsx'), zipSync({}));
    const corrupt = await sourceErrorOf(() => openXlsx('corrupt.xlsx'));
    assert.equal(corrupt.code, 'ingest.parse_error');
    assert.equal(corrupt.tableId, 'households');
    assert.match(
      corrupt.message,
      /^ingest\.parse_error: table households: corrupt\.xlsx is not a readable XLSX file: it has no xl\/workbook\.xml$/,
    );
    await writeWorkbook('formula-row.xlsx', 5, '<c r="B6"><f>1+1</f><v>2</v></c>');
    const formula = await sourceErrorOf(() => openXlsx('formula-row.xlsx'));
    assert.deepEqual(
      { code: formula.code, cell: formula.cell, row: formula.row },
      { code: 'ingest.formula_cell', cell: 'B6', row: 5 },
    );
    assert.equal(
      formula.message,
      'ingest.formula_cell: table households (cell B6, data row 5): sheet "Data" has a formula in cell B6; formulas are not evaluated, save the values instead',
    );
    assert.equal((await rowsOf(await openXlsx('many.xlsx'))).length, 20_000);
  });

  it('fails the load with ingest.memory_limit when the decoder thread runs out of heap; the relay goes on', async () => {
    await writeWorkbook('heavy.xlsx', 20_000);
    const bytes = new Uint8Array(await readFile(join(dir, 'heavy.xlsx')));
    const decoder = createXlsxDecoder({ resourceLimits: { maxOldGenerationSizeMb: 16 } });
    try {
      const error = await decoder.decode(FILE, bytes, undefined, WHOLE_SHEET).then(
        () => assert.fail('expected the decode to fail'),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof SourceError);
      assert.equal(error.code, 'ingest.memory_limit');
      assert.match(error.detail, /^decoding data\.xlsx ran out of JavaScript heap/);
    } finally {
      await decoder.close();
    }
    assert.equal((await rowsOf(await openXlsx('heavy.xlsx'))).length, 20_000);
  });

  it('fails the load with ingest.load_failed when the decoder thread exits or throws before it answers', async () => {
    const exited = await answerFrom(
      "require('node:worker_threads').parentPort.once('message', () => process.exit(3));",
    );
    assert.ok(exited instanceof SourceError);
    assert.equal(exited.code, 'ingest.load_failed');
    assert.equal(exited.detail, 'the thread decoding data.xlsx exited (code 3) before it answered');
    const threw = await answerFrom(
      "require('node:worker_threads').parentPort.once('message', () => { throw new RangeError('x'); });",
    );
    assert.ok(threw instanceof SourceError);
    assert.equal(threw.code, 'ingest.load_failed');
    assert.equal(threw.detail, 'the thread decoding data.xlsx failed (RangeError)');
  });

  it('fails the load with ingest.load_failed on an error the decode has no code for', async () => {
    const answer = { ok: false, unexpected: { name: 'TypeError', message: 'a bug' } };
    const error = await answerFrom(
      `const { parentPort } = require('node:worker_threads'); parentPort.once('message', () => parentPort.postMessage(${JSON.stringify(answer)}));`,
    );
    assert.ok(error instanceof SourceError);
    assert.equal(error.code, 'ingest.load_failed');
    assert.equal(error.detail, 'data.xlsx could not be decoded (TypeError)');
    assert.equal((error.cause as Error).message, 'a bug');
  });
});
