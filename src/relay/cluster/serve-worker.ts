// A cluster worker's side of the IPC channel: answers the primary's reload, refresh, metrics and status requests
// with this process's own backend and refresh scheduler (and its pings, which say it is alive).
import type { RelayAdminBackend } from '../admin/admin-backend.ts';
import type { RefreshScheduler } from '../reload/refresh-scheduler.ts';
import type { RefreshAnswer } from './refresh-rounds.ts';

/** A worker's refresh rounds, and the version of a table it serves. */
export interface WorkerRefresh extends Pick<RefreshScheduler, 'runTable'> {
  versionOf(datasetId: string, tableId: string): string | undefined;
}

import { asPrimaryMessage, type WorkerMessage, type WorkerOperation } from './cluster-messages.ts';

export function answerPrimary(
  backend: RelayAdminBackend,
  refresh: WorkerRefresh,
  send: (message: WorkerMessage) => void,
): () => void {
  const listener = (value: unknown) => {
    const message = asPrimaryMessage(value);
    if (!message) return;
    perform(backend, refresh, message).then(
      (result) => send({ kind: 'ambit:response', id: message.id, ok: true, result }),
      (error: unknown) =>
        send({
          kind: 'ambit:response',
          id: message.id,
          ok: false,
          error: error instanceof Error ? error.message : String(error),
        }),
    );
  };
  process.on('message', listener);
  return () => process.off('message', listener);
}

async function perform(
  backend: RelayAdminBackend,
  refresh: WorkerRefresh,
  operation: WorkerOperation,
): Promise<unknown> {
  switch (operation.op) {
    case 'reload-all':
      return backend.reloadAll(operation.trigger);
    case 'reload-table':
      return backend.reloadTable(operation.datasetId, operation.tableId);
    case 'refresh-table': {
      const { datasetId, tableId } = operation;
      // JSON has no undefined: null says the round reloaded nothing (or nothing is served yet).
      const outcome = (await refresh.runTable(datasetId, tableId)) ?? null;
      const answer: RefreshAnswer = { outcome, version: refresh.versionOf(datasetId, tableId) ?? null };
      return answer;
    }
    case 'metrics':
      return (await backend.metrics())[0] ?? [];
    case 'status':
      return (await backend.status())[0];
    case 'ping':
      return true;
  }
}
