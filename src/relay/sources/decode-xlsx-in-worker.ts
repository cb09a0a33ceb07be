// Runs the decode of XLSX workbooks in a thread of their own (xlsx-worker.ts): read-excel-file and the checks before
// it take seconds on a large sheet, and on the main thread they would hold every read the relay serves meanwhile.
// The thread is started on first use and kept for the next workbook (starting one costs about as much as decoding
// a small workbook), and stopped once idle, so what the decodes left on its heap goes with it.
import { Worker } from 'node:worker_threads';
import type { SheetRegion } from './find-formula-cell.ts';
import { SourceError } from './source-error.ts';
import type { SourceFile } from './source-file.ts';
import type { PackedSheet } from './xlsx-cells.ts';
import type { ErrorFacts, XlsxAnswer, XlsxTask } from './xlsx-worker.ts';

// Compiled (bin/build.js), the worker is a sibling .js module; from the sources it is TypeScript, and the worker
// registers the TypeScript loader itself (loader hooks are not inherited by worker threads). As for the CEL workers.
const COMPILED = import.meta.url.endsWith('.js');
const WORKER_URL = new URL(COMPILED ? './xlsx-worker.js' : './xlsx-worker.ts', import.meta.url).href;
const WORKER_BOOTSTRAP = COMPILED
  ? `import(${JSON.stringify(WORKER_URL)});`
  : `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL)}); });`;

/** Errors of the thread rather than of the decode: a thread that failed so is not given another workbook. */
const THREAD_FAILURES = new WeakSet<SourceError>();

/** How long the thread waits for another workbook before it is stopped. */
const IDLE_MS = 10_000;

export interface DecoderOptions {
  /** The thread's heap limits; by default those of the process (`--max-old-space-size` applies to it too). */
  readonly resourceLimits?: { readonly maxOldGenerationSizeMb?: number } | undefined;
}

export interface XlsxDecoder {
  /**
   * The sheet's cells, decoded in the decoder thread. Rejects with the SourceError the decode met, or one saying the
   * thread ran out of heap (`ingest.memory_limit`) or stopped without answering (`ingest.load_failed`); a thread
   * that failed so is replaced for the next workbook. `bytes` are handed over (transferred) and unusable afterwards.
   */
  decode(
    file: SourceFile,
    bytes: Uint8Array,
    sheet: string | undefined,
    region: SheetRegion,
  ): Promise<PackedSheet>;
  /** Stops the thread now (it is started again if another workbook comes). */
  close(): Promise<void>;
}

export function createXlsxDecoder(options: DecoderOptions = {}): XlsxDecoder {
  let worker: Worker | undefined;
  let idle: NodeJS.Timeout | undefined;
  // One workbook at a time, as when decodes ran on the main thread: several at once would each hold a workbook's
  // decode, on a heap of their own.
  let queue: Promise<unknown> = Promise.resolve();

  const stop = (stopped: Worker) => {
    if (worker === stopped) worker = undefined;
    return stopped.terminate().then(() => undefined);
  };

  const spawn = (): Worker => {
    const spawned = new Worker(WORKER_BOOTSTRAP, {
      eval: true,
      ...(options.resourceLimits === undefined ? {} : { resourceLimits: { ...options.resourceLimits } }),
    });
    // An error outside a task (none is expected) must not be an unhandled 'error' event, fatal to the process.
    spawned.on('error', () => {});
    spawned.on('exit', () => {
      if (worker === spawned) worker = undefined;
    });
    return spawned;
  };

  const run = async (task: XlsxTask, file: SourceFile): Promise<PackedSheet> => {
    clearTimeout(idle);
    let current: Worker;
    try {
      current = worker ??= spawn();
    } catch (error) {
      throw stopped(file, `could not be started (${facts(error)})`, error);
    }
    current.ref();
    try {
      return await answerOf(current, file, () =>
        current.postMessage(task, [task.bytes.buffer as ArrayBuffer]),
      );
    } catch (error) {
      // A decode that failed leaves the thread as fit as one that succeeded; a thread that failed is not reused.
      if (!(error instanceof SourceError) || THREAD_FAILURES.has(error)) void stop(current);
      throw error;
    } finally {
      if (worker === current) {
        // Idle, it does not keep the process alive.
        current.unref();
        idle = setTimeout(() => void stop(current), IDLE_MS);
        idle.unref();
      }
    }
  };

  return {
    decode(file, bytes, sheet, region) {
      // Moved, not copied, unless the bytes share their buffer with others.
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const moved = whole && bytes.buffer instanceof ArrayBuffer ? bytes : new Uint8Array(bytes);
      const task: XlsxTask = { file: { ...file }, bytes: moved, sheet, region };
      const turn = queue.then(() => run(task, file));
      queue = turn.catch(() => undefined);
      return turn;
    },
    async close() {
      clearTimeout(idle);
      if (worker !== undefined) await stop(worker);
    },
  };
}

/** The decoder readXlsx uses. */
export const xlsxDecoder = createXlsxDecoder();

/**
 * The worker's answer to the task `send` hands it. An error or an exit of the worker before it answers rejects,
 * with `ingest.memory_limit` for a thread out of heap, `ingest.load_failed` otherwise.
 */
export function answerOf(
  worker: Worker,
  file: Pick<SourceFile, 'tableId' | 'displayPath'>,
  send: () => void,
): Promise<PackedSheet> {
  return new Promise((resolve, reject) => {
    const done = () => {
      worker.off('message', onMessage);
      worker.off('messageerror', onMessageError);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (answer: XlsxAnswer) => {
      done();
      if (answer.ok) resolve(answer.sheet);
      else reject('sourceError' in answer ? rebuilt(file, answer) : unexpected(file, answer.unexpected));
    };
    const onMessageError = (error: Error) => {
      done();
      reject(stopped(file, 'sent an answer that could not be read', error));
    };
    const onError = (error: Error) => {
      done();
      reject(crashed(file, error));
    };
    const onExit = (code: number) => {
      done();
      reject(stopped(file, `exited (code ${code}) before it answered`));
    };
    worker.on('message', onMessage);
    worker.on('messageerror', onMessageError);
    worker.on('error', onError);
    worker.on('exit', onExit);
    try {
      send();
    } catch (error) {
      done();
      reject(stopped(file, `could not be handed the workbook (${facts(error)})`, error));
    }
  });
}

/** The SourceError the decode threw in the thread, as it would have been thrown here. */
function rebuilt(
  file: Pick<SourceFile, 'tableId'>,
  answer: Extract<XlsxAnswer, { sourceError: unknown }>,
): SourceError {
  const { code, detail, row, column, cell, cause } = answer.sourceError;
  return new SourceError({
    tableId: file.tableId,
    code,
    detail,
    ...(row === undefined ? {} : { row }),
    ...(column === undefined ? {} : { column }),
    ...(cell === undefined ? {} : { cell }),
    ...(cause === undefined ? {} : { cause: asError(cause) }),
  });
}

/** A failure the decode has no code for (a bug, a limit of the engine): its message stays in the cause. */
function unexpected(file: Pick<SourceFile, 'tableId' | 'displayPath'>, error: ErrorFacts): SourceError {
  return new SourceError({
    tableId: file.tableId,
    code: 'ingest.load_failed',
    detail: `${file.displayPath} could not be decoded (${error.code ?? error.name})`,
    cause: asError(error),
  });
}

function crashed(file: Pick<SourceFile, 'tableId' | 'displayPath'>, error: Error): SourceError {
  if ((error as { code?: unknown }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
    const outOfHeap = new SourceError({
      tableId: file.tableId,
      code: 'ingest.memory_limit',
      detail: `decoding ${file.displayPath} ran out of JavaScript heap (the XLSX decoder thread has a heap as large as the relay's): give the process more heap (NODE_OPTIONS=--max-old-space-size=<MiB>), or make the workbook smaller or convert it to CSV`,
      cause: error,
    });
    THREAD_FAILURES.add(outOfHeap);
    return outOfHeap;
  }
  return stopped(file, `failed (${facts(error)})`, error);
}

function stopped(
  file: Pick<SourceFile, 'tableId' | 'displayPath'>,
  what: string,
  cause?: unknown,
): SourceError {
  const error = new SourceError({
    tableId: file.tableId,
    code: 'ingest.load_failed',
    detail: `the thread decoding ${file.displayPath} ${what}`,
    ...(cause === undefined ? {} : { cause }),
  });
  THREAD_FAILURES.add(error);
  return error;
}

function facts(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'unknown error';
}

function asError(facts: ErrorFacts): Error {
  const error = new Error(facts.message);
  error.name = facts.name;
  return error;
}
