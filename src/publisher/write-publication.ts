// Writes a static publication: into an empty directory or over a previous publication (whose `metadata/` and
// `.well-known/` trees are replaced whole, so no stale file survives), never into anything else. The files are
// first written to a hidden staging folder inside the output directory, then moved into place by rename: a
// failed write (a full disk, a permission) leaves the previous publication as it was, never a partial one.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { PUBLICATION_SCHEMA_VERSION, type StaticArtefact } from './build-static-artefacts.ts';

export class PublishError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PublishError';
  }
}

/** The trees a publication owns; everything it writes lies under one of them. `metadata` moves in last: its
 * index.json is what marks a directory as a publication. */
const OWNED = ['.well-known', 'metadata'] as const;

/** Staging folders are hidden, so `ambit metadata serve` never serves one. */
const STAGING_PREFIX = '.ambit-publish-';
/** In a staging folder, where the commit moves the previous trees (removed with it). */
const PREVIOUS = '.previous';

/**
 * `onWarning` hears of a staging folder that could not be removed (a folder of the previous publication the
 * user may not delete, say): hidden, it is never served, and the publication is complete without it.
 */
export function writePublication(
  outDir: string,
  artefacts: readonly StaticArtefact[],
  onWritten: (artefact: StaticArtefact) => void = () => {},
  onWarning: (message: string) => void = () => {},
): void {
  const root = resolve(outDir);
  checkPaths(artefacts);
  const created = prepareRoot(root, outDir, onWarning);
  let staging: string | undefined;
  let committed = false;
  try {
    staging = mkdtempSync(join(root, STAGING_PREFIX));
    for (const artefact of artefacts) {
      const file = join(staging, ...artefact.path.split('/'));
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, artefact.body);
      onWritten(artefact);
    }
    commit(root, staging);
    committed = true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    const kept = created ? 'nothing was published' : 'the directory was left as it was';
    throw new PublishError(`cannot write to ${outDir}: ${(error as Error).message} (${kept})`);
  } finally {
    if (staging !== undefined) {
      removeStaging(staging, committed ? 'the previous publication, moved aside' : 'unfinished', onWarning);
    }
    if (created) removeIfEmpty(root);
  }
}

/** Removes a staging folder; one that cannot be removed is left, said so, and retried by the next run. */
function removeStaging(path: string, what: string, onWarning: (message: string) => void): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch (error) {
    onWarning(`could not remove ${path} (${what}): ${(error as Error).message}; remove it by hand`);
  }
}

/** Checks (or creates) the output directory; true when this run created it. */
function prepareRoot(root: string, outDir: string, onWarning: (message: string) => void): boolean {
  if (!existsSync(root)) {
    try {
      createDirectory(root);
    } catch (error) {
      throw new PublishError(`cannot create ${outDir}: ${(error as Error).message}`);
    }
    return true;
  }
  if (!statSync(root).isDirectory()) throw new PublishError(`${outDir} exists and is not a directory`);
  // A staging folder left by an interrupted run does not make the directory foreign, and is removed once the
  // directory is known to be ours.
  let names: string[];
  try {
    names = readdirSync(root);
  } catch (error) {
    throw new PublishError(`cannot read ${outDir}: ${(error as Error).message}`);
  }
  const leftovers = names.filter((name) => name.startsWith(STAGING_PREFIX));
  if (names.length > leftovers.length && !isPublication(root) && !stoppedMidCommit(root, names, leftovers)) {
    throw new PublishError(
      `${outDir} is neither empty nor a previous publication (no metadata/index.json of ${PUBLICATION_SCHEMA_VERSION}): refusing to write into it`,
    );
  }
  for (const name of leftovers) removeStaging(join(root, name), 'left by an earlier run', onWarning);
  return false;
}

/**
 * `mkdir -p`, one missing folder at a time from the nearest one that exists. Node's recursive mkdir retries forever
 * where a folder exists but an entry cannot be made in it and the error says ENOENT (/proc): here that is an error.
 */
function createDirectory(root: string): void {
  const missing: string[] = [];
  for (let dir = root; !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (error) {
      // Made meanwhile by another process: as good as made here.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(dir).isDirectory()) throw error;
    }
  }
}

/**
 * A run stopped between the renames of its commit leaves no metadata/ in place, but a publication in its staging
 * folder: the new one staged, or the previous one moved aside. Only a publish makes such a folder, so the
 * directory is one it owns.
 */
function stoppedMidCommit(root: string, names: readonly string[], leftovers: readonly string[]): boolean {
  return (
    !names.includes('metadata') &&
    leftovers.some((name) => isPublication(join(root, name)) || isPublication(join(root, name, PREVIOUS)))
  );
}

/** An index.json of another kind (a web root's own `metadata/` folder, say) must not be replaced. */
function isPublication(root: string): boolean {
  try {
    const index = JSON.parse(readFileSync(join(root, 'metadata', 'index.json'), 'utf8')) as unknown;
    return (
      index !== null &&
      typeof index === 'object' &&
      (index as { schema_version?: unknown }).schema_version === PUBLICATION_SCHEMA_VERSION
    );
  } catch {
    return false;
  }
}

/**
 * Moves the previous trees into the staging folder (removed afterwards) and the new ones into place. A rename
 * that fails undoes the ones before it, so the previous trees are never removed with the staging folder.
 */
function commit(root: string, staging: string): void {
  const previous = join(staging, PREVIOUS);
  mkdirSync(previous);
  const moves: [from: string, to: string][] = [];
  for (const tree of OWNED) {
    moves.push([join(root, tree), join(previous, tree)], [join(staging, tree), join(root, tree)]);
  }
  const done: [string, string][] = [];
  try {
    for (const [from, to] of moves) {
      if (!exists(from)) continue;
      renameSync(from, to);
      done.push([from, to]);
    }
  } catch (error) {
    for (const [from, to] of done.reverse()) renameSync(to, from);
    throw error;
  }
}

/** Like existsSync, but true for a symbolic link too (a link is replaced, never followed). */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function removeIfEmpty(root: string): void {
  try {
    rmdirSync(root);
  } catch {
    // Not empty (the publication is there) or already gone.
  }
}

function checkPaths(artefacts: readonly StaticArtefact[]): void {
  const seen = new Set<string>();
  // By lower-case path: ids are ASCII, and a publication is meant for any host, case-insensitive ones (macOS,
  // Windows) included, where two such files would be one and the index would describe a file that is not there.
  const folded = new Map<string, string>();
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
    const other = folded.get(path.toLowerCase());
    if (other !== undefined) {
      throw new PublishError(
        `${other} and ${path} differ only in case: a case-insensitive file system (macOS, Windows) keeps one; rename one of the ids`,
      );
    }
    folded.set(path.toLowerCase(), path);
  }
  // Ids may hold dots, so dataset `people.json` needs a folder where dataset `people` has its descriptor.
  for (const { path } of artefacts) {
    const segments = path.toLowerCase().split('/');
    for (let end = 1; end < segments.length; end++) {
      const file = folded.get(segments.slice(0, end).join('/'));
      if (file !== undefined) {
        throw new PublishError(`${file} is a file and also the folder of ${path}: rename one of the ids`);
      }
    }
  }
}
