// Bench child: publishes a manifest several times in one process (modules already loaded) and reports each
// run's wall and CPU time as a JSON "ready" line, the first (cold) run apart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { publishMetadata } from '../../src/publisher/publish-metadata.ts';

export interface PublishReport {
  readonly event: 'ready';
  readonly files: number;
  readonly bytes: number;
  /** Milliseconds: load and check the manifest, build the model, render every file, write the directory. */
  readonly coldMs: number;
  readonly warmMs: readonly number[];
  readonly warmCpuMs: readonly number[];
}

const [manifest, runsText] = process.argv.slice(2);
if (manifest === undefined) {
  console.error('usage: measure-publish.ts <manifest.yaml> [runs]');
  process.exit(2);
}
const runs = Number(runsText ?? '10');
const out = mkdtempSync(join(tmpdir(), 'ambit-bench-publish-'));
try {
  const timeOne = () => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const artefacts = publishMetadata(manifest, join(out, 'site'));
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return { artefacts, wall, cpu: (used.user + used.system) / 1000 };
  };
  const cold = timeOne();
  const warm = Array.from({ length: runs }, timeOne);
  const report: PublishReport = {
    event: 'ready',
    files: cold.artefacts.length,
    bytes: cold.artefacts.reduce((sum, artefact) => sum + artefact.body.length, 0),
    coldMs: cold.wall,
    warmMs: warm.map((run) => run.wall),
    warmCpuMs: warm.map((run) => run.cpu),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
