// Failure to open or decode a table's source file, with a stable `ingest.*` code and a data-free message.
import type { IngestCode } from './ingest-codes.ts';

export interface SourceErrorInit {
  readonly tableId: string;
  /** Stable code, one of INGEST_CODES (a new one is added there, which documents it). */
  readonly code: IngestCode;
  /** What went wrong, without cell values or absolute paths (a path relative to the config dir is fine). */
  readonly detail: string;
  /** 1-based data row number (the header row is not counted). */
  readonly row?: number;
  /** Column name as found in the source. */
  readonly column?: string;
  /** A1 cell reference inside an XLSX sheet, e.g. `C7`. */
  readonly cell?: string;
  readonly cause?: unknown;
}

export class SourceError extends Error {
  readonly tableId: string;
  readonly code: IngestCode;
  readonly detail: string;
  readonly row?: number;
  readonly column?: string;
  readonly cell?: string;

  constructor(init: SourceErrorInit) {
    super(formatMessage(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'SourceError';
    this.tableId = init.tableId;
    this.code = init.code;
    this.detail = init.detail;
    if (init.row !== undefined) this.row = init.row;
    if (init.column !== undefined) this.column = init.column;
    if (init.cell !== undefined) this.cell = init.cell;
  }
}

function formatMessage(init: SourceErrorInit): string {
  const where: string[] = [];
  if (init.cell !== undefined) where.push(`cell ${init.cell}`);
  if (init.row !== undefined) where.push(`data row ${init.row}`);
  if (init.column !== undefined) where.push(`column ${JSON.stringify(init.column)}`);
  const location = where.length > 0 ? ` (${where.join(', ')})` : '';
  return `${init.code}: table ${init.tableId}${location}: ${init.detail}`;
}
