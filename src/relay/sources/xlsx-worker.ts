// The XLSX decoder thread (started by decode-xlsx-in-worker.ts): checks and decodes each workbook it is sent off the
// main thread, which keeps serving reads meanwhile, and answers each with the packed cells or the failure.
import { parentPort } from 'node:worker_threads';
import { decodeXlsxSheet } from './decode-xlsx-sheet.ts';
import type { SheetRegion } from './find-formula-cell.ts';
import { SourceError } from './source-error.ts';
import type { SourceFile } from './source-file.ts';
import { type PackedSheet, packSheet } from './xlsx-cells.ts';

export interface XlsxTask {
  readonly file: SourceFile;
  /** The workbook, transferred to the thread. */
  readonly bytes: Uint8Array;
  readonly sheet: string | undefined;
  readonly region: SheetRegion;
}

/** An Error as it crosses threads: a structured clone keeps neither a SourceError's class nor its fields. */
export interface ErrorFacts {
  readonly name: string;
  readonly message: string;
  readonly code?: string | undefined;
}

export type SourceErrorFacts = Pick<SourceError, 'code' | 'detail' | 'row' | 'column' | 'cell'> & {
  readonly cause?: ErrorFacts | undefined;
};

export type XlsxAnswer =
  | { readonly ok: true; readonly sheet: PackedSheet }
  | { readonly ok: false; readonly sourceError: SourceErrorFacts }
  | { readonly ok: false; readonly unexpected: ErrorFacts };

if (parentPort) {
  const port = parentPort;
  // Tasks come one at a time: the next is sent once this one is answered.
  port.on('message', ({ file, bytes, sheet, region }: XlsxTask) => {
    // read-excel-file takes a Uint8Array that is not a Buffer for a file path.
    const workbook = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    decodeXlsxSheet(file, workbook, sheet, region)
      .then((decoded) => {
        const { packed, transfer } = packSheet(decoded);
        port.postMessage({ ok: true, sheet: packed } satisfies XlsxAnswer, transfer);
      })
      .catch((error: unknown) => port.postMessage(failure(error)));
  });
}

function failure(error: unknown): XlsxAnswer {
  if (error instanceof SourceError) {
    const { code, detail, row, column, cell, cause } = error;
    return {
      ok: false,
      sourceError: { code, detail, row, column, cell, cause: cause === undefined ? undefined : facts(cause) },
    };
  }
  return { ok: false, unexpected: facts(error) };
}

function facts(error: unknown): ErrorFacts {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const code = (error as { code?: unknown }).code;
  return { name: error.name, message: error.message, code: typeof code === 'string' ? code : undefined };
}
