// Admin reloads that a worker being started again took no part in. It loads before it listens, and a reload goes
// only to the workers that listen, so a source it read before the operator changed it would be served by it
// alone, until the next reload, after the others had answered for the new data. Once it has loaded, the primary
// runs these reloads in it before counting it as running again.
import type { WorkerOperation } from './cluster-messages.ts';

export type ReloadOperation = Extract<WorkerOperation, { op: 'reload-all' | 'reload-table' }>;

export class MissedReloads {
  private readonly missed = new Map<number, Map<string, ReloadOperation>>();

  /** A reload asked while these workers were loading. */
  note(workers: Iterable<number>, reload: ReloadOperation): void {
    const key = reload.op === 'reload-all' ? '' : `${reload.datasetId}/${reload.tableId}`;
    for (const worker of workers) {
      let reloads = this.missed.get(worker);
      if (reloads === undefined) {
        reloads = new Map();
        this.missed.set(worker, reloads);
      }
      reloads.set(key, reload);
    }
  }

  /** The reloads to run in the worker, now forgotten: one of every table, or each table's once. */
  take(worker: number): ReloadOperation[] {
    const reloads = this.missed.get(worker);
    this.missed.delete(worker);
    if (reloads === undefined) return [];
    const all = reloads.get('');
    return all === undefined ? [...reloads.values()] : [all];
  }

  /** The worker's process exited: the next one reads every source anew. */
  forget(worker: number): void {
    this.missed.delete(worker);
  }
}
