// The relay's mutable runtime state: the current data generation and readiness counts.
import type { Generation } from './store/generation.ts';

export interface Readiness {
  total: number;
  loaded: number;
  failed: number;
}

export interface RelayState {
  generation: Generation | undefined;
  readonly readiness: Readiness;
}
