// Change tokens for `refresh.mode: mtime`: a cheap value that changes whenever the source's data may have
// changed. A source type plugs in by implementing ChangeTokenSource; the relay reloads a table when its token
// differs from the one read just before its last successful load.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PostgresSourceConfig, TableConfig } from '../config/schema.ts';

export interface ChangeTokenSource {
  /** An opaque value; equal values mean "unchanged". Rejects when the source cannot be asked. */
  changeToken(): Promise<string>;
}

/**
 * The token, or a stand-in naming why it could not be read (`unavailable:<code>`). Recorded with a successful load
 * like any token, so a token that stays unreadable (a change-token query that lost its privileges, say) costs one
 * reload rather than one on every poll; a reload that fails records nothing, so it is tried again at the next poll.
 */
export function readChangeToken(tokens: ChangeTokenSource): Promise<string> {
  return tokens
    .changeToken()
    .catch((error: unknown) => `unavailable:${(error as { code?: unknown } | null)?.code ?? 'error'}`);
}

export interface ChangeTokenContext {
  /** Directory relative source paths resolve against. */
  readonly baseDir: string;
  /** The change token of a PostgreSQL table (its `change_token_sql`), supplied by the postgres source. */
  readonly postgres?: (
    table: TableConfig & { source: PostgresSourceConfig },
  ) => ChangeTokenSource | undefined;
}

export function changeTokenSource(
  table: TableConfig,
  context: ChangeTokenContext,
): ChangeTokenSource | undefined {
  const source = table.source;
  switch (source.type) {
    case 'file':
      return fileChangeToken(resolve(context.baseDir, source.path));
    case 'postgres':
      return context.postgres?.({ ...table, source });
  }
}

/**
 * Device, inode, size and modification time in nanoseconds: an atomic replace (new inode) and an in-place
 * rewrite (new mtime or size) both rotate it.
 */
export function fileChangeToken(path: string): ChangeTokenSource {
  return {
    async changeToken() {
      const info = await stat(path, { bigint: true });
      return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}`;
    },
  };
}
