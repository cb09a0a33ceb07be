// The relay's mutable runtime state: the current data generation and readiness counts.
import type { Generation } from './store/generation.ts';

export interface Readiness {
  total: number;
  loaded: number;
  failed: number;
  /** Tables whose first load waits for an unreachable database, by `datasetId/tableId` (retried until it loads). */
  waiting?: Map<string, TableWait>;
}

export interface TableWait {
  readonly datasetId: string;
  readonly tableId: string;
  /** The load error code, `ingest.source_unavailable`. */
  readonly code: string;
}

export interface RelayState {
  generation: Generation | undefined;
  readonly readiness: Readiness;
}
