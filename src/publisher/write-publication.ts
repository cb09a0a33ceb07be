// Writes a static publication: into an empty directory or over a previous publication (whose `metadata/` and
// `.well-known/` trees are replaced whole, so no stale file survives), never into anything else.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import type { StaticArtefact } from './build-static-artefacts.ts';

export class PublishError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishError';
  }
}

/** The trees a publication owns; everything it writes lies under one of them. */
const OWNED = ['metadata', '.well-known'] as const;

export function writePublication(
  outDir: string,
  artefacts: readonly StaticArtefact[],
  onWritten: (artefact: StaticArtefact) => void = () => {},
): void {
  const root = resolve(outDir);
  checkPaths(artefacts);
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new PublishError(`${outDir} exists and is not a directory`);
    const entries = readdirSync(root);
    if (entries.length > 0 && !existsSync(join(root, 'metadata', 'index.json'))) {
      throw new PublishError(
        `${outDir} is neither empty nor a previous publication (no metadata/index.json): refusing to write into it`,
      );
    }
    for (const tree of OWNED) rmSync(join(root, tree), { recursive: true, force: true });
  }
  for (const artefact of artefacts) {
    const file = join(root, ...artefact.path.split('/'));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, artefact.body);
    onWritten(artefact);
  }
}

function checkPaths(artefacts: readonly StaticArtefact[]): void {
  const seen = new Set<string>();
  for (const { path } of artefacts) {
    // Ids in paths are validated when the manifest loads; this guards the publisher against any other source.
    const segments = path.split('/');
    const safe =
      !isAbsolute(path) &&
      normalize(path).split(sep).join('/') === path &&
      segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..') &&
      (OWNED as readonly string[]).includes(segments[0] as string);
    if (!safe) throw new PublishError(`unsafe artefact path ${JSON.stringify(path)}`);
    if (seen.has(path)) throw new PublishError(`two artefacts share the path ${path}`);
    seen.add(path);
  }
}
