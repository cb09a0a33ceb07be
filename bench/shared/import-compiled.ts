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
