// Tables read from one file (the sheets of one workbook, say) are one source: replaced, the file is new for all
// of them at once. A refresh that reloads one of them reloads the others refreshed on their own too, as one swap,
// so no read meets one sheet of the new workbook beside another of the old (households without their members).
import { normalize } from 'node:path';
import type { RelayConfig, TableConfig } from '../config/schema.ts';
import { tableKey } from '../store/generation.ts';
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

function fileOf(table: TableConfig): string | undefined {
  // Every path resolves against the config's folder: spelled alike once normalised, they name one file.
  const source = table.source as TableConfig['source'] | undefined;
  return source?.type === 'file' ? normalize(source.path) : undefined;
}
