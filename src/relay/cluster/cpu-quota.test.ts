import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cpuQuota, type ReadText } from './cpu-quota.ts';

/** A file system of the given files; any other path cannot be read. */
function files(entries: Record<string, string>): ReadText {
  return (path) => {
    const text = entries[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };
}

describe('cpuQuota', () => {
  it('reads a cgroup v2 quota, rounded up to whole CPUs', () => {
    const read = files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '250000 100000\n' });
    assert.equal(cpuQuota(read), 3);
    assert.equal(
      cpuQuota(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': '50000 100000\n' })),
      1,
    );
  });

  it('takes the smallest quota of the group and the groups above it', () => {
    const read = files({
      '/proc/self/cgroup': '0::/kubepods/pod1/ctr\n',
      '/sys/fs/cgroup/kubepods/pod1/ctr/cpu.max': 'max 100000\n',
      '/sys/fs/cgroup/kubepods/pod1/cpu.max': '200000 100000\n',
      '/sys/fs/cgroup/kubepods/cpu.max': '800000 100000\n',
      '/sys/fs/cgroup/cpu.max': 'max 100000\n',
    });
    assert.equal(cpuQuota(read), 2);
  });

  it('is undefined without a quota, or when nothing can be read', () => {
    assert.equal(
      cpuQuota(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': 'max 100000\n' })),
      undefined,
    );
    assert.equal(cpuQuota(files({})), undefined);
    assert.equal(cpuQuota(files({ '/proc/self/cgroup': '0::/\n' })), undefined);
    assert.equal(
      cpuQuota(files({ '/proc/self/cgroup': '0::/\n', '/sys/fs/cgroup/cpu.max': 'garbage\n' })),
      undefined,
    );
  });

  it('reads a cgroup v1 quota, in the named group or at the root a container sees', () => {
    const v1 = '4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n0::/\n';
    const named = files({
      '/proc/self/cgroup': v1,
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us': '150000\n',
      '/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us': '100000\n',
    });
    assert.equal(cpuQuota(named), 2);
    const atRoot = files({
      '/proc/self/cgroup': v1,
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us': '400000\n',
      '/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us': '100000\n',
    });
    assert.equal(cpuQuota(atRoot), 4);
    const unlimited = files({
      '/proc/self/cgroup': '1:cpu:/\n0::/\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': '-1\n',
      '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000\n',
    });
    assert.equal(cpuQuota(unlimited), undefined);
  });

  it('reads this machine without failing', () => {
    const quota = cpuQuota();
    assert.ok(quota === undefined || (Number.isInteger(quota) && quota >= 1), String(quota));
  });
});
