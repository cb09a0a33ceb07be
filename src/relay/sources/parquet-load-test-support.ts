// Loading hand-made Parquet files in the reader's tests: in this process, or each in a process of its own with a
// 192 MiB heap, stopped after 20 s, for files that would exhaust that heap or spin if the reader let them through.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { runToEnd } from '../../../test/helpers/run-to-end.ts';
import { openFileSource } from './open-file-source.ts';
import { rowsOf } from './source-test-support.ts';

export interface ParquetLoads {
  /** The folder the files are written to (made before the tests, removed after). */
  dir(): string;
  /** The rows of `bytes` written as `name`, read here. */
  load(name: string, bytes: Uint8Array): Promise<unknown[][]>;
  /**
   * What loading each file came to in a process of its own: `read`, or `<code>: <message>`; and the process's peak
   * resident memory in MiB.
   */
  apart(files: Record<string, Uint8Array>): Promise<{ outcomes: Record<string, string>; mib: number }>;
}

export function useParquetLoads(prefix: string): ParquetLoads {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const limits = () => ({ baseDir: dir, maxFileBytes: 1e9, xlsxMaxFileBytes: 1e9 });
  return {
    dir: () => dir,
    async load(name, bytes) {
      await writeFile(join(dir, name), bytes);
      return rowsOf(await openFileSource('facilities', { type: 'file', path: name }, limits()));
    },
    async apart(files) {
      for (const [name, bytes] of Object.entries(files)) await writeFile(join(dir, name), bytes);
      const script = `import { openFileSource } from ${JSON.stringify(new URL('./open-file-source.ts', import.meta.url).href)};
        const outcomes = {};
        for (const name of ${JSON.stringify(Object.keys(files))}) {
          try {
            const source = await openFileSource('facilities', { type: 'file', path: name }, ${JSON.stringify(limits())});
            for await (const batch of source.batches) void batch;
            outcomes[name] = 'read';
          } catch (error) {
            outcomes[name] = error.code + ': ' + error.message;
          }
        }
        process.stdout.write(JSON.stringify({ outcomes, mib: process.resourceUsage().maxRSS / 1024 }));`;
      return JSON.parse(runToEnd(script, ['--max-old-space-size=192']));
    },
  };
}
