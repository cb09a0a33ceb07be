// The messages a `--workers N` relay's primary and workers exchange over the cluster IPC channel.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import type { SourceErrorInit } from '../sources/source-error.ts';

/** Environment variable naming a worker's index (1..N); only cluster workers have it. */
export const WORKER_INDEX_ENV = 'AMBIT_RELAY_WORKER_INDEX';
/** `1` for a worker the primary starts again after one died: it loads its data before it listens. */
export const WORKER_RESTARTED_ENV = 'AMBIT_RELAY_WORKER_RESTARTED';

export type WorkerOperation =
  /** `startup`: the primary bringing workers that loaded different data at start together (agree-at-start.ts). */
  | { readonly op: 'reload-all'; readonly trigger?: 'startup' }
  | { readonly op: 'reload-table'; readonly datasetId: string; readonly tableId: string }
  /** One refresh round of the table (its mtime check, or its interval reload): the primary runs them for all. */
  | { readonly op: 'refresh-table'; readonly datasetId: string; readonly tableId: string }
  | { readonly op: 'metrics' }
  | { readonly op: 'status' }
  /** Answered at once: the worker is alive (asked while a reload is waited for). */
  | { readonly op: 'ping' };

export type PrimaryMessage = { readonly kind: 'ambit:request'; readonly id: number } & WorkerOperation;

export type WorkerMessage =
  | { readonly kind: 'ambit:response'; readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly kind: 'ambit:response'; readonly id: number; readonly ok: false; readonly error: string }
  /** Sent once the worker listens and its sources are loaded. */
  | { readonly kind: 'ambit:listening'; readonly url: string }
  /** Sent when the worker cannot start; it exits right after. */
  | ({ readonly kind: 'ambit:failed' } & StartFailure)
  | AuditBatchMessage;

/**
 * Why a worker could not start. The channel carries JSON, which keeps neither an error's class nor its own fields:
 * what the primary needs to report the failure as one process would is carried beside the message (start-failure.ts).
 */
export interface StartFailure {
  readonly message: string;
  /** For a listener that could not bind: what tells the operator which address and why. */
  readonly listen?: { code?: string; syscall: string; address: string; port: number };
  /** For a source that failed to load: its code, table, detail and where in the source. */
  readonly source?: Omit<SourceErrorInit, 'cause'>;
  /** For a config problem met while starting (an audit file that cannot be used): every issue. */
  readonly config?: readonly ConfigIssue[];
}

/**
 * One group commit of a worker's audit chain, with `audit.sink: stdout`: the primary writes it to its standard
 * output (the only process that does, so lines never cut into each other) and answers `ambit:audit-written`.
 * `lines` are whole envelope lines, each ending with a newline; past `deadline` (epoch ms) the worker no longer
 * waits for them, so the primary refuses them instead of writing records whose responses already failed.
 */
export interface AuditBatchMessage {
  readonly kind: 'ambit:audit';
  readonly id: number;
  readonly lines: string;
  readonly deadline: number;
}

/** The primary's answer to an `ambit:audit` batch: written to standard output, or not (and why). */
export type AuditWrittenMessage =
  | { readonly kind: 'ambit:audit-written'; readonly id: number; readonly ok: true }
  | {
      readonly kind: 'ambit:audit-written';
      readonly id: number;
      readonly ok: false;
      readonly error: string;
      /** Cut short, with its rest written ahead of the next write: its lines end up whole, in order. */
      readonly committed?: boolean;
    };

/** The message as one of ours, or undefined (cluster also carries its own internal messages). */
export function asWorkerMessage(value: unknown): WorkerMessage | undefined {
  return isOurs(value) ? (value as WorkerMessage) : undefined;
}

export function asPrimaryMessage(value: unknown): PrimaryMessage | undefined {
  return isOurs(value) && (value as { kind: string }).kind === 'ambit:request'
    ? (value as PrimaryMessage)
    : undefined;
}

export function asAuditWritten(value: unknown): AuditWrittenMessage | undefined {
  return isOurs(value) && (value as { kind: string }).kind === 'ambit:audit-written'
    ? (value as AuditWrittenMessage)
    : undefined;
}

function isOurs(value: unknown): boolean {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' && kind.startsWith('ambit:');
}

/**
 * Each worker keeps its own audit hash chain, in its own file next to the configured one
 * (`audit.jsonl` -> `audit.worker-2.jsonl`): one chain per writer is what keeps every chain verifiable.
 */
export function workerAuditPath(path: string, index: number): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash + 1) return `${path}.worker-${index}`;
  return `${path.slice(0, dot)}.worker-${index}${path.slice(dot)}`;
}
