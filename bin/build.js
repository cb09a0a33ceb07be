// The compiled build of src/: each TypeScript module transpiled to one JavaScript module (esbuild; imports stay
// imports, so the module graph and `import.meta.url` of every file are as in src/). The CLI runs it instead of
// loading the sources through a TypeScript loader: it starts in half the time and runs plain JavaScript.
//
// Builds are cached in node_modules/.cache/ambit/ under a key over the sources' paths, sizes and modification
// times, so an edited source gets a new build on the next start. A build is written to a private folder and
// renamed into place, so processes starting at the same time (tests, cluster workers) never see half a build.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE_DIR = join(PACKAGE_ROOT, 'src');
const CACHE_DIR = join(PACKAGE_ROOT, 'node_modules', '.cache', 'ambit');
const COMPLETE = '.complete';
// Builds beyond the newest few are removed once they are a day old (a long-running process may still use one).
const KEEP_BUILDS = 3;
const STALE_MS = 24 * 60 * 60 * 1000;

/** The modules of the build: every .ts file under src/ except tests. */
function sourceFiles() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) files.push(path);
    }
  };
  walk(SOURCE_DIR);
  return files.sort();
}

function buildKey(files, esbuildVersion) {
  const hash = createHash('sha256');
  hash.update(`${esbuildVersion}\n${readFileSync(fileURLToPath(import.meta.url))}\n`);
  for (const file of files) {
    const stat = statSync(file);
    hash.update(`${relative(SOURCE_DIR, file)}\t${stat.size}\t${stat.mtimeMs}\n`);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The folder of an up-to-date build (the mirror of src/), building it first when needed. Throws when it cannot
 * build (no esbuild, a read-only install); the caller then runs the sources.
 */
export async function ensureBuild() {
  const inherited = inheritedBuild(process.env);
  if (inherited !== undefined) return inherited;
  const dir = await currentBuild();
  // Inherited by the relay's cluster workers (forked from this process), so that a worker started again after the
  // sources changed (an upgrade in place) runs the code its primary and the other workers run.
  process.env[BUILD_ENV] = dir;
  return dir;
}

/** The variable naming the primary's build to its cluster workers. */
export const BUILD_ENV = 'AMBIT_CLUSTER_BUILD';

/**
 * The build the primary of a `node:cluster` worker runs (a worker has `NODE_UNIQUE_ID`), while it is complete; any
 * other process builds from the sources as they are.
 */
export function inheritedBuild(env) {
  const dir = env[BUILD_ENV];
  if (env.NODE_UNIQUE_ID === undefined || typeof dir !== 'string' || dirname(dir) !== CACHE_DIR)
    return undefined;
  return isComplete(dir) ? dir : undefined;
}

async function currentBuild() {
  const esbuild = await import('esbuild');
  const files = sourceFiles();
  const dir = join(CACHE_DIR, `build-${buildKey(files, esbuild.version)}`);
  if (isComplete(dir)) return dir;

  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(CACHE_DIR, { recursive: true });
  try {
    await esbuild.build({
      entryPoints: files,
      outdir: staging,
      outbase: SOURCE_DIR,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      // Every import stays an import: relative ones point at the sibling .js output, packages stay packages.
      plugins: [
        {
          name: 'keep-imports',
          setup(build) {
            build.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === 'entry-point') return undefined;
              const path = args.path.startsWith('.') ? args.path.replace(/\.ts$/, '.js') : args.path;
              return { path, external: true };
            });
          },
        },
      ],
    });
    writeFileSync(join(staging, COMPLETE), `${new Date().toISOString()}\n`);
    try {
      renameSync(staging, dir);
    } catch (error) {
      // Another process finished the same build first; theirs is identical.
      if (!isComplete(dir)) throw error;
      rmSync(staging, { recursive: true, force: true });
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  pruneOldBuilds(dir);
  return dir;
}

/**
 * One line saying why no build could be made. esbuild's own message lists every error, one per module: an install
 * whose cache cannot be written would print hundreds of lines before the CLI runs from the sources.
 */
export function buildFailureReason(error) {
  const errors = Array.isArray(error?.errors) ? error.errors : [];
  if (errors.length > 0) {
    const first = String(errors[0]?.text ?? 'unknown error').split('\n')[0];
    return errors.length === 1 ? first : `${first} (and ${errors.length - 1} more like it)`;
  }
  return String(error?.message ?? error).split('\n')[0];
}

function isComplete(dir) {
  try {
    statSync(join(dir, COMPLETE));
    return true;
  } catch {
    return false;
  }
}

function pruneOldBuilds(current) {
  try {
    const builds = readdirSync(dirname(current))
      .filter((name) => name.startsWith('build-'))
      .map((name) => join(dirname(current), name))
      .filter((path) => path !== current)
      .map((path) => ({ path, mtime: statSync(path).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    const now = Date.now();
    for (const build of builds.slice(KEEP_BUILDS - 1)) {
      if (now - build.mtime > STALE_MS) rmSync(build.path, { recursive: true, force: true });
    }
  } catch {
    // Pruning is housekeeping; a failure never stops the CLI.
  }
}

/** Builds on its own (`node bin/build.js`), printing the folder. */
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await ensureBuild());
}
