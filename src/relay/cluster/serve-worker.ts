// A cluster worker's side of the IPC channel: answers the primary's reload, refresh, metrics and status requests
// with this process's own backend and refresh scheduler (and its pings, which say it is alive).
import type { RelayAdminBackend } from '../admin/admin-backend.ts';
import type { RefreshScheduler } from '../reload/refresh-scheduler.ts';
import { asPrimaryMessage, type WorkerMessage, type WorkerOperation } from './cluster-messages.ts';

export function answerPrimary(
  backend: RelayAdminBackend,
  refresh: Pick<RefreshScheduler, 'runTable'>,
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
  refresh: Pick<RefreshScheduler, 'runTable'>,
  operation: WorkerOperation,
): Promise<unknown> {
  switch (operation.op) {
    case 'reload-all':
      return backend.reloadAll(operation.trigger);
    case 'reload-table':
      return backend.reloadTable(operation.datasetId, operation.tableId);
    case 'refresh-table':
      // JSON has no undefined: null says the round reloaded nothing.
      return (await refresh.runTable(operation.datasetId, operation.tableId)) ?? null;
    case 'metrics':
      return (await backend.metrics())[0] ?? [];
    case 'status':
      return (await backend.status())[0];
    case 'ping':
      return true;
  }
}
