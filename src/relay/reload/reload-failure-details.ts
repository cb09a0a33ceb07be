// What a failed load reports: its stable code, and where in the source it failed (never a cell value).
import { SourceError } from '../sources/source-error.ts';

export function codeOf(error: unknown): string {
  if (error instanceof SourceError) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  // Only dotted catalogue codes are stable enough to report; anything else is a load failure.
  return typeof code === 'string' && /^[a-z_]+\.[a-z_.]+$/.test(code) ? code : 'ingest.load_failed';
}

/**
 * Where a load failed, never what was there: the detail of an error located in the data may quote a cell value,
 * so the log gets its row, column and cell; other errors (a missing file, a refused connection) their detail.
 */
export function whereOf(error: unknown): Record<string, unknown> {
  if (error instanceof SourceError) {
    const { row, column, cell } = error;
    if (row === undefined && column === undefined && cell === undefined) return { err_detail: error.detail };
    return {
      ...(row === undefined ? {} : { row }),
      ...(column === undefined ? {} : { column }),
      ...(cell === undefined ? {} : { cell }),
    };
  }
  return { err_message: error instanceof Error ? error.message : String(error) };
}
