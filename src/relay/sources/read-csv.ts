// Streams a CSV/TSV file through csv-parse: header first (a short read), then rows in batches on iteration.
import { type Parser, parse } from 'csv-parse';
import { csvQuoteGuard } from './csv-quote-guard.ts';
import type { CsvFormat, SourceRows } from './open-file-source.ts';
import { SourceError } from './source-error.ts';
import {
  assertUnchanged,
  BATCH_ROWS,
  fileAccessError,
  openSourceFile,
  type SourceFile,
  sourceError,
} from './source-file.ts';
import { lineAt, utf8Guard } from './utf8-guard.ts';

export interface CsvLimits {
  readonly maxColumns: number;
  readonly maxCells: number;
  /**
   * Bytes of one record's cells (CSV_LIMITS' when left out): the parser holds a record whole until it ends, so a
   * line that never ends (no newline, or a quote never closed) would otherwise grow until the process dies.
   */
  readonly maxRecordBytes?: number;
}

export const CSV_LIMITS = {
  maxColumns: 65_536,
  maxCells: 10_000_000,
  maxRecordBytes: 64 * 1024 * 1024,
} as const satisfies CsvLimits;

/**
 * Cells are strings exactly as in the file (an empty field stays ''); no trimming, no type casting. The file is
 * UTF-8 (a BOM is skipped); a byte that is not fails the load (`ingest.invalid_encoding`) rather than becoming
 * U+FFFD. Records end with CRLF, LF or CR, mixed freely.
 */
export async function readCsv(
  file: SourceFile,
  format: CsvFormat,
  limits: CsvLimits = CSV_LIMITS,
): Promise<SourceRows> {
  const recordBytes = limits.maxRecordBytes ?? CSV_LIMITS.maxRecordBytes;
  const first = await readFirstRecord(file, format, recordBytes);
  if (first !== undefined && first.length > limits.maxColumns) {
    throw sourceError(
      file,
      'ingest.column_limit',
      `${file.displayPath} has ${first.length} columns, over the limit of ${limits.maxColumns}`,
    );
  }
  const header = first ?? [];
  // An empty header cell is named as in XLSX: left '', two of them (trailing commas) would be one name twice.
  const columns = header.map((name, index) =>
    format.header_row && name !== '' ? name : `column_${index + 1}`,
  );
  return {
    columns,
    byteSize: file.byteSize,
    batches: {
      [Symbol.asyncIterator]: () => iterateBatches(file, format, header, limits.maxCells, recordBytes),
    },
  };
}

interface OpenParser {
  readonly parser: Parser;
  close(): void;
}

async function openParser(
  file: SourceFile,
  format: CsvFormat,
  maxRecordBytes: number,
  firstRecordOnly = false,
): Promise<OpenParser> {
  const parser: Parser = parse({
    ...(firstRecordOnly ? { to: 1 } : {}),
    delimiter: format.delimiter,
    quote: format.quote,
    // A quote inside a quoted field is written twice, whatever the quote character is.
    escape: format.quote,
    bom: true,
    // Left to itself csv-parse takes the line end of the first line for every record: an LF header over CRLF rows
    // would keep each row's CR in its last cell, and a CRLF header over LF rows would merge those rows.
    record_delimiter: ['\r\n', '\n', '\r'],
    // A blank line (often a trailing one) is not a record.
    skip_empty_lines: true,
    // A stray quote inside an unquoted field is kept as text; unclosed quotes still fail, and so does text after a
    // closing quote (csvQuoteGuard), which relax_quotes would keep with the quotes.
    relax_quotes: true,
    max_record_size: maxRecordBytes,
  });
  if (file.byteSize === 0) {
    parser.end();
    return { parser, close: () => parser.destroy() };
  }
  // The file that passed the guard, opened without waiting on a FIFO put in its place; never read past the size
  // that passed the guard, even if the file grows meanwhile. The stream closes the handle.
  const handle = await openSourceFile(file);
  const input = handle.createReadStream({ start: 0, end: file.byteSize - 1 });
  // csv-parse decodes leniently: bytes that are not UTF-8 would be served as U+FFFD.
  const utf8 = utf8Guard(async (offset) =>
    errorAt(
      file,
      offset,
      'ingest.invalid_encoding',
      (where) => `is not UTF-8 text${where}: save it as UTF-8`,
    ),
  );
  const quotes = csvQuoteGuard(format.quote, format.delimiter, async (offset) =>
    errorAt(
      file,
      offset,
      'ingest.parse_error',
      (where) => `is not valid CSV${where}: ${CSV_PROBLEMS.CSV_INVALID_CLOSING_QUOTE}`,
    ),
  );
  input.on('error', (error) => parser.destroy(error));
  utf8.on('error', (error) => parser.destroy(error));
  quotes.on('error', (error) => parser.destroy(error));
  input.pipe(utf8).pipe(quotes).pipe(parser);
  return {
    parser,
    close() {
      input.destroy();
      utf8.destroy();
      quotes.destroy();
      parser.destroy();
    },
  };
}

/** The error of the byte at `offset`, its message naming the line it stands on (` at line <n>`) when it can. */
async function errorAt(
  file: SourceFile,
  offset: number,
  code: 'ingest.invalid_encoding' | 'ingest.parse_error',
  problem: (where: string) => string,
): Promise<SourceError> {
  let where = '';
  try {
    const handle = await openSourceFile(file);
    try {
      where = ` at line ${await lineAt(handle, offset)}`;
    } finally {
      await handle.close();
    }
  } catch {
    // The line is a courtesy: the file may have gone or changed meanwhile.
  }
  return sourceError(file, code, `${file.displayPath} ${problem(where)}`);
}

async function readFirstRecord(
  file: SourceFile,
  format: CsvFormat,
  maxRecordBytes: number,
): Promise<string[] | undefined> {
  const { parser, close } = await openParser(file, format, maxRecordBytes, true);
  try {
    for await (const record of parser as AsyncIterable<string[]>) return record;
    return undefined;
  } catch (error) {
    throw csvError(file, error, format.header_row, 0, maxRecordBytes);
  } finally {
    close();
  }
}

/** `first` is the file's first record as the header was read from it. */
async function* iterateBatches(
  file: SourceFile,
  format: CsvFormat,
  first: readonly string[],
  maxCells: number,
  maxRecordBytes: number,
): AsyncGenerator<unknown[][]> {
  if (first.length === 0) return;
  await assertUnchanged(file);
  const { parser, close } = await openParser(file, format, maxRecordBytes);
  const maxRows = Math.floor(maxCells / first.length);
  let seen = 0;
  let dataRows = 0;
  let batch: unknown[][] = [];
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      seen += 1;
      if (seen === 1 && !sameFirstRecord(record, first, format.header_row)) {
        throw sourceError(file, 'ingest.file_changed', `${file.displayPath} changed while it was being read`);
      }
      if (seen === 1 && format.header_row) continue;
      dataRows += 1;
      if (dataRows > maxRows) {
        throw sourceError(
          file,
          'ingest.column_limit',
          `${file.displayPath} has more than ${maxCells} cells (${first.length} columns × ${maxRows} rows)`,
          { row: dataRows },
        );
      }
      batch.push(record);
      if (batch.length >= BATCH_ROWS) {
        yield batch;
        batch = [];
      }
    }
    // A rewrite that began while the rows were read (a copy or an editor writing in place) may have torn them.
    await assertUnchanged(file);
    if (batch.length > 0) yield batch;
  } catch (error) {
    throw csvError(file, error, format.header_row, dataRows, maxRecordBytes);
  } finally {
    close();
  }
}

function sameFirstRecord(record: readonly string[], first: readonly string[], headerRow: boolean): boolean {
  if (record.length !== first.length) return false;
  return !headerRow || record.every((value, index) => value === first[index]);
}

const CSV_PROBLEMS: Readonly<Record<string, string>> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_RECORD_INCONSISTENT_FIELDS_LENGTH: 'the number of fields differs from the first row',
  CSV_RECORD_INCONSISTENT_COLUMNS: 'the number of fields differs from the first row',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote is followed by something other than a delimiter or line end',
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a closing quote is followed by unexpected characters',
};

/**
 * csv-parse errors carry the offending record; only their code and position are kept so no cell value reaches
 * a log. `dataRowsSoFar` locates errors raised by this reader itself.
 */
function csvError(
  file: SourceFile,
  error: unknown,
  headerRow: boolean,
  dataRowsSoFar: number,
  maxRecordBytes: number,
): SourceError {
  if (error instanceof SourceError) return error;
  const parsed = error as { code?: unknown; records?: unknown; lines?: unknown } | undefined;
  const code = typeof parsed?.code === 'string' ? parsed.code : undefined;
  if (code === undefined || !code.startsWith('CSV_')) {
    return code?.startsWith('E') ? fileAccessError(file, error) : unexpected(file, dataRowsSoFar);
  }
  const recordsBefore = typeof parsed?.records === 'number' ? parsed.records : undefined;
  const line = typeof parsed?.lines === 'number' ? ` at line ${parsed.lines}` : '';
  const what =
    code === 'CSV_MAX_RECORD_SIZE'
      ? `a record holds more than ${maxRecordBytes} bytes, the limit of one record`
      : (CSV_PROBLEMS[code] ?? `malformed record (${code})`);
  if (recordsBefore === undefined) {
    return sourceError(file, 'ingest.parse_error', `${file.displayPath} is not valid CSV${line}: ${what}`);
  }
  const row = recordsBefore + 1 - (headerRow ? 1 : 0);
  if (row < 1) {
    return sourceError(
      file,
      'ingest.parse_error',
      `${file.displayPath} has a malformed header${line}: ${what}`,
    );
  }
  return sourceError(file, 'ingest.parse_error', `${file.displayPath} is not valid CSV${line}: ${what}`, {
    row,
  });
}

function unexpected(file: SourceFile, dataRowsSoFar: number): SourceError {
  return sourceError(file, 'ingest.parse_error', `${file.displayPath} could not be decoded as CSV`, {
    row: dataRowsSoFar + 1,
  });
}
