// Tables read from one file (the sheets of one workbook, say) are one source: replaced, the file is new for all
// of them at once. A refresh that reloads one of them reloads the others refreshed on their own too, as one swap,
// so no read meets one sheet of the new workbook beside another of the old (households without their members).
import { normalize } from 'node:path';
import type { RelayConfig, TableConfig } from '../config/schema.ts';
import { SourceError } from '../sources/source-error.ts';
import { tableKey } from '../store/generation.ts';
import { type ChangeTokenSource, readChangeToken } from './change-token.ts';
import { refreshOf } from './refresh-scheduler.ts';

/** For each table key, the tables a refresh of it reloads: itself first, then those sharing its file. */
export function refreshGroups(config: RelayConfig): ReadonlyMap<string, readonly string[]> {
  const byFile = new Map<string, string[]>();
  const groups = new Map<string, string[]>();
  for (const dataset of config.datasets) {
    for (const table of dataset.tables) {
      const key = tableKey(dataset.id, table.id);
      groups.set(key, [key]);
      const file = fileOf(table);
      // A manual table reloads only when an operator asks: it neither joins nor is joined.
      if (file === undefined || refreshOf(dataset, table).mode === 'manual') continue;
      const sharing = byFile.get(file) ?? [];
      byFile.set(file, [...sharing, key]);
    }
  }
  for (const keys of byFile.values()) {
    for (const key of keys) groups.set(key, [key, ...keys.filter((other) => other !== key)]);
  }
  return groups;
}

/**
 * Reads the token of each file two or more of `keys` are read from, before their loads; the function returned reads
 * them again once the loads are over and names the tables whose file changed meanwhile. Each load checks its own
 * read, but loads one after another (or that opened at different moments) can each read a whole, different version.
 */
export function sharedFileWatcher(
  config: RelayConfig,
  fileToken: ((datasetId: string, table: TableConfig) => ChangeTokenSource | undefined) | undefined,
): (keys: readonly string[]) => Promise<() => Promise<ReadonlySet<string>>> {
  const files = new Map<string, { file: string; tokens: () => ChangeTokenSource | undefined }>();
  for (const dataset of config.datasets) {
    for (const table of dataset.tables) {
      const file = fileOf(table);
      const tokens = () => fileToken?.(dataset.id, table);
      if (file !== undefined) files.set(tableKey(dataset.id, table.id), { file, tokens });
    }
  }
  return (keys) => watchSharedFiles(keys, files);
}

async function watchSharedFiles(
  keys: readonly string[],
  files: ReadonlyMap<string, { file: string; tokens: () => ChangeTokenSource | undefined }>,
): Promise<() => Promise<ReadonlySet<string>>> {
  const byFile = new Map<string, string[]>();
  for (const key of keys) {
    const file = files.get(key)?.file;
    if (file !== undefined) byFile.set(file, [...(byFile.get(file) ?? []), key]);
  }
  const watched: { keys: string[]; tokens: ChangeTokenSource; before: string }[] = [];
  for (const sharing of byFile.values()) {
    const tokens = sharing.length > 1 ? files.get(sharing[0] as string)?.tokens() : undefined;
    if (tokens !== undefined) watched.push({ keys: sharing, tokens, before: await readChangeToken(tokens) });
  }
  return async () => {
    const changed = new Set<string>();
    for (const file of watched) {
      if ((await readChangeToken(file.tokens)) !== file.before) for (const key of file.keys) changed.add(key);
    }
    return changed;
  };
}

/** `loaded` with the tables of `changed` that loaded turned into `ingest.file_changed` failures. */
export function refuseMixedReads<T extends { ok: boolean; ref: { key: string; table: { id: string } } }>(
  loaded: readonly T[],
  changed: ReadonlySet<string>,
): (T | { ok: false; ref: T['ref']; error: SourceError })[] {
  return loaded.map((result) =>
    result.ok && changed.has(result.ref.key)
      ? {
          ok: false,
          ref: result.ref,
          error: new SourceError({
            tableId: result.ref.table.id,
            code: 'ingest.file_changed',
            detail:
              'its file changed while the tables read from it loaded, so they may have read two versions of it',
          }),
        }
      : result,
  );
}

function fileOf(table: TableConfig): string | undefined {
  // Every path resolves against the config's folder: spelled alike once normalised, they name one file.
  const source = table.source as TableConfig['source'] | undefined;
  return source?.type === 'file' ? normalize(source.path) : undefined;
}
