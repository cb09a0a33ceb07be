// A pid says whether a lock's owner is alive only to a process that sees the same pids: on the same boot of the
// same machine, in the same pid namespace. A lock names that "host" beside its pid; a lock from another host (a
// second container, or a machine sharing the volume) is judged by its lease instead: its holder touches the lock
// file every LEASE_REFRESH_MS, and a lock whose modification time stays still for LEASE_WATCH_MS is stale.
// Watching compares the file's own times, never two machines' clocks.
import { readFileSync, readlinkSync, statSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';

export const LEASE_REFRESH_MS = 5_000;
/**
 * Six refreshes: a holder whose event loop is blocked (a large load) for less than this still looks alive, and a
 * file system that keeps times to the second (or caches attributes for a few seconds) still shows the refreshes.
 */
export const LEASE_WATCH_MS = 30_000;
const POLL_MS = 1_000;

/** How time passes while a lease is watched: real time by default; tests let the "other host" act meanwhile. */
export interface LeaseWatch {
  now(): number;
  sleep(ms: number): void;
}

export type LeaseVerdict = 'live' | 'stale' | 'changed';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Starting is blocked meanwhile: nothing is served before the audit file is ours. */
export const realLeaseWatch: LeaseWatch = {
  now: () => performance.now(),
  sleep: (ms) => {
    Atomics.wait(sleeper, 0, 0, ms);
  },
};

let cachedHost: string | undefined;

/** This process's host: the boot of the machine and the pid namespace on Linux, the host name elsewhere. */
export function thisHost(): string {
  if (cachedHost === undefined) cachedHost = linuxHost() ?? `name:${hostname()}`;
  return cachedHost.replace(/\s/g, '_');
}

function linuxHost(): string | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    // `pid:[4026531836]`: the namespace's inode, unique on this boot.
    const namespace = readlinkSync('/proc/self/ns/pid').replace(/^pid:\[|\]$/g, '');
    return boot !== '' && namespace !== '' ? `${boot}/${namespace}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Watches the lock `path` (its text `text`) for up to LEASE_WATCH_MS: `live` when its holder touched it, `changed`
 * when it was replaced or removed meanwhile (look again), `stale` when it stayed still.
 */
export function watchLease(path: string, text: string, watch: LeaseWatch): LeaseVerdict {
  const first = stamp(path, text);
  if (first === undefined) return 'changed';
  const start = watch.now();
  while (watch.now() - start < LEASE_WATCH_MS) {
    watch.sleep(POLL_MS);
    const now = stamp(path, text);
    if (now === undefined) return 'changed';
    if (now !== first) return 'live';
  }
  return 'stale';
}

/** The lock's modification time while it still holds `text`. */
function stamp(path: string, text: string): bigint | undefined {
  try {
    if (readFileSync(path, 'utf8') !== text) return undefined;
    return statSync(path, { bigint: true }).mtimeNs;
  } catch {
    return undefined;
  }
}

/** Touches the lock while it is still this holder's; false once it is not (released, or taken over). */
export function refreshLease(path: string, text: string): boolean {
  try {
    if (readFileSync(path, 'utf8') !== text) return false;
    const now = new Date();
    utimesSync(path, now, now);
    return true;
  } catch {
    return false;
  }
}
