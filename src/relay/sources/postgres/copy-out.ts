// `COPY (...) TO STDOUT` through the pg client: CopyData messages are decoded into column batches as they arrive,
// and the socket is paused while decoded batches wait for the store, so at most a few batches are ever in memory.
import { isAscii } from 'node:buffer';
import type pg from 'pg';
import type { FieldType } from '../../config/schema.ts';
import type { HeapGuard } from '../../store/heap-guard.ts';
import type { ColumnBatch } from '../open-file-source.ts';
import { CopyBatchBuilder } from './parse-copy-text.ts';

/** Rows per batch handed to the store. */
export const COPY_BATCH_ROWS = 8192;
/**
 * Row bytes after which a batch is handed over with fewer rows: the heap is checked after each batch, and 8192 wide
 * rows (100 KiB each) would otherwise fill it between two checks.
 */
export const COPY_BATCH_BYTES = 4 * 1024 * 1024;
/** Rows at least this large are checked against the heap before they are decoded. */
export const LARGE_ROW_BYTES = 1024 * 1024;
/** Decoded batches allowed to wait before the socket is paused. */
const MAX_WAITING = 2;

interface PausableConnection {
  query(text: string): void;
  readonly stream: { pause(): void; resume(): void };
}

/**
 * A row the server sent that could not be decoded (a value past the longest string Node can hold, say): the data,
 * not the connection, is at fault, so the load fails rather than waiting for the database to come back.
 */
export class CopyDecodeError extends Error {
  constructor(cause: unknown) {
    super('a row of the COPY answer could not be decoded', { cause });
    this.name = 'CopyDecodeError';
  }
}

export class CopyOut implements pg.Submittable {
  private readonly text: string;
  private readonly builder: CopyBatchBuilder;
  private readonly heapGuard: HeapGuard;
  private batchBytes = 0;
  private readonly waiting: ColumnBatch[] = [];
  private connection: PausableConnection | undefined;
  private paused = false;
  private done = false;
  private failure: unknown;
  private wake: (() => void) | undefined;
  /** Bytes of row data received. */
  bytes = 0;
  /**
   * Set by the client when it times statements (`query_timeout`): called once the COPY has ended, it stops the
   * client's timer. When the timer fires first, the client reports the time-out through `handleError`.
   */
  callback: ((error: unknown) => void) | undefined;

  constructor(text: string, types: readonly FieldType[], heapGuard: HeapGuard) {
    this.text = text;
    this.builder = new CopyBatchBuilder(types, COPY_BATCH_ROWS);
    this.heapGuard = heapGuard;
  }

  submit(connection: pg.Connection): void {
    this.connection = connection as unknown as PausableConnection;
    this.connection.query(this.text);
  }

  handleCopyData(message: { chunk: Buffer }): void {
    if (this.failure !== undefined) return;
    const chunk = message.chunk;
    this.bytes += chunk.length;
    if (chunk.length >= LARGE_ROW_BYTES) {
      // Its text takes a byte per character, two once one is not ASCII; V8 would let a value past the heap limit
      // be made, and end the process at the next collection.
      try {
        this.heapGuard(isAscii(chunk) ? chunk.length : 2 * chunk.length);
      } catch (error) {
        this.fail(error);
        return;
      }
    }
    try {
      this.builder.addRow(chunk);
    } catch (error) {
      this.fail(new CopyDecodeError(error));
      return;
    }
    this.batchBytes += chunk.length;
    if (this.builder.rowCount === this.builder.capacity || this.batchBytes >= COPY_BATCH_BYTES) this.take();
  }

  handleCommandComplete(): void {
    if (this.builder.rowCount > 0) this.take();
  }

  private take(): void {
    this.batchBytes = 0;
    this.push(this.builder.take());
  }

  handleError(error: unknown): void {
    this.fail(error);
  }

  handleReadyForQuery(): void {
    this.done = true;
    this.settle();
    this.notify();
  }

  /**
   * The rows are no longer read (the COPY failed, or its reader stopped) and the connection is about to close
   * without waiting for the server's ReadyForQuery: stops the client's statement timer now, which would otherwise
   * hold the process for up to `query_timeout` and then fire at a closed connection.
   */
  abandon(): void {
    this.settle();
  }

  private settle(): void {
    const callback = this.callback;
    this.callback = undefined;
    callback?.(this.failure ?? null);
  }

  // Not expected for COPY TO; present because the client may call them on an unusual answer.
  handleEmptyQuery(): void {}
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCopyInResponse(): void {
    this.fail(new Error('unexpected COPY FROM answer'));
  }

  /** The decoded batches, in order; rejects with the server's or the decoder's error. */
  async *batches(): AsyncGenerator<ColumnBatch> {
    for (;;) {
      const next = this.waiting.shift();
      if (next !== undefined) {
        if (this.paused && this.waiting.length === 0) this.resume();
        yield next;
        continue;
      }
      if (this.failure !== undefined) throw this.failure;
      if (this.done) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private push(batch: ColumnBatch): void {
    this.waiting.push(batch);
    if (!this.paused && this.waiting.length >= MAX_WAITING) {
      this.paused = true;
      this.connection?.stream.pause();
    }
    this.notify();
  }

  private fail(error: unknown): void {
    this.failure ??= error;
    this.waiting.length = 0;
    // The server's ReadyForQuery must still get through for the client to settle.
    if (this.paused) this.resume();
    this.notify();
  }

  private resume(): void {
    this.paused = false;
    this.connection?.stream.resume();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
