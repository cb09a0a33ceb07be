// The package's own folder (where package.json, demo/ and src/ live), found from this module's location: the
// same answer whether the module runs from src/ or from the compiled build in node_modules/.cache/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  let dir = start;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'ambit'
    )
      return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ambit above ${start}`);
    dir = parent;
  }
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** The package's name and version, from its package.json. */
export const PACKAGE_INFO = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
  readonly name: string;
  readonly version: string;
};
