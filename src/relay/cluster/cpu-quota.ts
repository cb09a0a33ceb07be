// The CPUs a cgroup quota lets this process use, which `--workers auto` counts beside its cores: Node 20's
// availableParallelism() sees the cores the process may run on, not a quota, so a container limited to 2 CPUs on a
// 64-core host (Kubernetes `limits.cpu`, `docker run --cpus`, systemd `CPUQuota=`) would start 64 workers, each
// holding the whole data.
import { readFileSync } from 'node:fs';

/** Reads a file as text; throws when it cannot (tests pass their own). */
export type ReadText = (path: string) => string;

const readText: ReadText = (path) => readFileSync(path, 'utf8');

/**
 * Whole CPUs the quota allows (at least 1, rounded up), or undefined when there is none or it cannot be read.
 * cgroup v2: `cpu.max` of the process's group and of each group above it (the smallest applies). cgroup v1:
 * `cpu.cfs_quota_us` over `cpu.cfs_period_us` of its `cpu` group, or of the hierarchy's root as a container sees it.
 */
export function cpuQuota(read: ReadText = readText): number | undefined {
  let groups: string;
  try {
    groups = read('/proc/self/cgroup');
  } catch {
    return undefined;
  }
  const lines = groups.split('\n');
  const unified = lines.find((line) => line.startsWith('0::'));
  const v2 = unified === undefined ? undefined : quotaV2(read, unified.slice(3));
  if (v2 !== undefined) return v2;
  const v1 = lines.map((line) => line.split(':')).find((parts) => parts[1]?.split(',').includes('cpu'));
  return v1 === undefined ? undefined : quotaV1(read, v1[1] as string, v1.slice(2).join(':'));
}

function quotaV2(read: ReadText, group: string): number | undefined {
  let smallest: number | undefined;
  // `/a/b`, `/a`, then the root: a limit set on a parent group binds its children too.
  for (let path = trimmed(group); ; path = path.slice(0, path.lastIndexOf('/'))) {
    const limit = attempt(() => {
      const [quota, period] = read(`/sys/fs/cgroup${path}/cpu.max`).trim().split(/\s+/);
      return quota === 'max' ? undefined : cpus(Number(quota), Number(period));
    });
    if (limit !== undefined && (smallest === undefined || limit < smallest)) smallest = limit;
    if (path === '') return smallest;
  }
}

function quotaV1(read: ReadText, controllers: string, group: string): number | undefined {
  // A container sees its own group as the hierarchy's root, while /proc/self/cgroup may still name the host's path.
  for (const path of new Set([trimmed(group), ''])) {
    const limit = attempt(() => {
      const base = `/sys/fs/cgroup/${controllers}${path}`;
      return cpus(
        Number(read(`${base}/cpu.cfs_quota_us`).trim()),
        Number(read(`${base}/cpu.cfs_period_us`).trim()),
      );
    });
    if (limit !== undefined) return limit;
  }
  return undefined;
}

/** A group path without its trailing `/` (the root is the empty path). */
function trimmed(group: string): string {
  const path = group.trim();
  return path.endsWith('/') ? path.slice(0, -1) : path;
}

/** No quota (`-1` in v1) or nonsense reads as none. */
function cpus(quota: number, period: number): number | undefined {
  if (!Number.isFinite(quota) || !Number.isFinite(period) || quota <= 0 || period <= 0) return undefined;
  return Math.max(1, Math.ceil(quota / period));
}

function attempt(read: () => number | undefined): number | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
