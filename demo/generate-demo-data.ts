// Writes the synthetic demo registries to demo/data/: `node bin/run-ts.js demo/generate-demo-data.ts`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDemoRecords } from './generator/build-demo-records.ts';
import { seededRandom } from './generator/seeded-random.ts';
import { serializeDemoFiles } from './generator/serialize-demo-files.ts';

const SEED = 42;

/** Generates every demo file into `outputDir`; the output is byte-identical on every run. */
export async function generateDemoData(
  outputDir: string,
  log: (line: string) => void = console.log,
): Promise<void> {
  const records = buildDemoRecords(seededRandom(SEED));
  mkdirSync(outputDir, { recursive: true });
  for (const file of await serializeDemoFiles(records)) {
    writeFileSync(join(outputDir, file.name), file.bytes);
    log(`${file.name}: ${file.bytes.byteLength} bytes`);
  }
  log(
    `rows: ${Object.entries(records)
      .map(([name, rows]) => `${name} ${rows.length}`)
      .join(', ')}`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  await generateDemoData(join(dirname(fileURLToPath(import.meta.url)), 'data'));
}
