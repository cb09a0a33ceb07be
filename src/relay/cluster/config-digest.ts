// What every process of a `--workers N` relay must agree on: the config and the secrets that decide who may read
// what and how answers are signed (keys, audit and cursor secrets, the metadata manifest). Each worker reads the
// config file itself, so one started again after the file (or an env file) was edited would otherwise serve the
// edit beside workers serving what the relay started with. The primary hands its digest to every worker it forks.
// Database URLs are left out: like a source file's rows, they say where data comes from, and a password rotated
// in them must not keep a worker from starting again.
import { createHash } from 'node:crypto';
import type { LoadedRelayConfig } from '../config/load-relay-config.ts';

/** The environment variable carrying the primary's digest to its workers. */
export const CONFIG_DIGEST_ENV = 'AMBIT_RELAY_CONFIG_DIGEST';

/** A one-way digest: the secrets it covers are in the workers' environment already, never in this value. */
export function configDigest(loaded: LoadedRelayConfig): string {
  const { config, secrets, baseDir, manifest } = loaded;
  const hash = createHash('sha256');
  hash.update(JSON.stringify(config));
  hash.update(JSON.stringify(secrets.apiKeys));
  hash.update(secrets.auditSecret);
  hash.update(secrets.cursorSecret);
  hash.update(JSON.stringify([baseDir, manifest?.digest ?? null]));
  return hash.digest('hex');
}

/** Why a worker whose config is not the primary's does not start; undefined when they agree (or no digest came). */
export function configMismatch(loaded: LoadedRelayConfig, expected: string | undefined): string | undefined {
  if (expected === undefined || expected === configDigest(loaded)) return undefined;
  return 'its config differs from the one the relay started with (the config file, or a file or environment variable it names, changed since): restore it, or restart the relay to apply the change';
}
