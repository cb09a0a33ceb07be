// The primary's requests to its workers over the cluster IPC channel, answered by id. A worker that is shutting
// down closes its channel before it exits: a request to it fails (and the worker counts as not running) instead of
// raising an unhandled 'error' event, which would take the primary, and so the whole relay, down.
import { asWorkerMessage, type WorkerOperation } from './cluster-messages.ts';

/** What the primary needs of a cluster worker (a `node:cluster` Worker). */
export interface RequestableWorker {
  isConnected(): boolean;
  send(message: unknown, callback: (error: Error | null) => void): boolean;
}

interface Pending {
  readonly worker: RequestableWorker;
  readonly label: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export interface WorkerRequests {
  /** Sends one operation; `timeoutMs` bounds the wait for the answer (none: as long as it takes). */
  ask<T>(
    worker: RequestableWorker,
    label: string,
    operation: WorkerOperation,
    timeoutMs?: number,
  ): Promise<T>;
  /** Settles the request a worker's message answers. */
  onMessage(worker: RequestableWorker, value: unknown): void;
  /** Fails every request still waiting for this worker (it disconnected or exited). */
  abandon(worker: RequestableWorker, reason: string): void;
}

export function createWorkerRequests(): WorkerRequests {
  const pending = new Map<number, Pending>();
  let nextId = 1;

  return {
    ask<T>(worker: RequestableWorker, label: string, operation: WorkerOperation, timeoutMs?: number) {
      return new Promise<T>((resolve, reject) => {
        if (!worker.isConnected()) {
          reject(new Error(`${label} is not connected`));
          return;
        }
        const id = nextId++;
        const timer =
          timeoutMs === undefined
            ? undefined
            : setTimeout(() => {
                pending.delete(id);
                reject(new Error(`${label} did not answer ${operation.op}`));
              }, timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          pending.delete(id);
        };
        pending.set(id, {
          worker,
          label,
          resolve: (result) => {
            settle();
            resolve(result as T);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
        });
        worker.send({ kind: 'ambit:request', id, ...operation }, (error) => {
          // The channel closed between the check and the send (the worker is on its way out).
          if (error) pending.get(id)?.reject(new Error(`${label} could not be asked: ${error.message}`));
        });
      });
    },
    onMessage(worker, value) {
      const message = asWorkerMessage(value);
      if (message?.kind !== 'ambit:response') return;
      const waiting = pending.get(message.id);
      if (waiting?.worker !== worker) return;
      if (message.ok) waiting.resolve(message.result);
      else waiting.reject(new Error(`${waiting.label}: ${message.error}`));
    },
    abandon(worker, reason) {
      for (const waiting of [...pending.values()]) {
        if (waiting.worker === worker) waiting.reject(new Error(reason));
      }
    },
  };
}
