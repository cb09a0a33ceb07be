// Bench servers run the compiled build of src/ (bin/build.js), as `ambit relay serve` does, rather than the
// sources through the TypeScript loader: the numbers are those of what users run.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// @ts-expect-error: bin/build.js is plain JavaScript without declarations.
import { ensureBuild } from '../../bin/build.js';

/** The compiled twin of `src/<path>.ts`, typed as the source module (`path` without the extension). */
export async function importCompiled<T>(path: string): Promise<T> {
  const dir: string = await ensureBuild();
  return (await import(pathToFileURL(join(dir, `${path}.js`)).href)) as T;
}

/** What every bench server passes its service: the compiled system clock, randomness and a quiet logger. */
export async function compiledServiceDeps(name: string) {
  const [{ systemClock }, { createLogger }, { systemRandom }] = await Promise.all([
    importCompiled<typeof import('../../src/platform/clock.ts')>('platform/clock'),
    importCompiled<typeof import('../../src/platform/log.ts')>('platform/log'),
    importCompiled<typeof import('../../src/platform/random.ts')>('platform/random'),
  ]);
  const logger = createLogger({ name, level: 'warn' });
  return { logger, clock: systemClock, random: systemRandom };
}
