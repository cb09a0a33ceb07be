// What a reload answers: whether it swapped, per table what failed, and (under `--workers`) how the processes'
// answers compare.

export interface ReloadFailure {
  readonly dataset_id: string;
  readonly table_id: string;
  /** The stable code of the load failure (`ingest.*` and the like); messages stay in the log. */
  readonly code: string;
}

/** A table the first load waits for, and why (`ingest.source_unavailable`): the same shape as a failure. */
export type TableWaiting = ReloadFailure;

export interface ReloadOutcome {
  readonly ok: boolean;
  readonly counts: { readonly total: number; readonly succeeded: number; readonly failed: number };
  readonly failures: readonly ReloadFailure[];
  /** Version of the generation served once the reload is over (unchanged after a failure). */
  readonly generation: string | undefined;
  /**
   * Under `--workers`: the processes serve different generations (each runs its own refresh timers, or an earlier
   * reload split them), so `generation` names none although data is served.
   */
  readonly generationsDiffer?: true;
  /**
   * Set when nothing ran because the first load is not over: it reads every source itself, and one waiting for
   * its database would hold a queued reload for as long as the database stays away.
   */
  readonly firstLoadRunning?: { readonly waiting: readonly TableWaiting[] };
  /**
   * Under `--workers`: the reload failed in some processes and succeeded in the others, which now serve the new
   * data while these keep the previous one.
   */
  readonly splitProcesses?: { readonly failed: number; readonly total: number };
  /**
   * After a reload that succeeded: the version served of each table it loaded. Under `--workers`, each process
   * reads the sources itself, and equal versions are what says that they serve the same data.
   */
  readonly versions?: readonly TableVersion[];
  /** Set when the reload swapped in data the process did not serve before. */
  readonly changed?: true;
  /** Under `--workers`: the tables whose data still differs between processes after the reload ran twice. */
  readonly differing?: readonly { readonly dataset_id: string; readonly table_id: string }[];
}

export interface TableVersion {
  readonly dataset_id: string;
  readonly table_id: string;
  readonly version: string;
}
