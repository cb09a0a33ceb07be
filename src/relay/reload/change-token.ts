// Change tokens for `refresh.mode: mtime`: a cheap value that changes whenever the source's data may have
// changed. A source type plugs in by implementing ChangeTokenSource; the relay reloads a table when its token
// differs from the one read just before its last successful load.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PostgresSourceConfig, TableConfig } from '../config/schema.ts';

export interface ChangeTokenSource {
  /** An opaque value; equal values mean "unchanged". Rejects when the source cannot be asked. */
  changeToken(): Promise<string>;
  /**
   * True while the source may still be being written (a file modified moments ago): mtime refresh then reloads
   * only once it read the same token at two polls in a row, so a half-written file is not served.
   */
  settling?(token: string): boolean;
}

/**
 * The token, or a stand-in naming why it could not be read (`unavailable:<code>`). Recorded with a successful load
 * like any token, so a token that stays unreadable (a change-token query that lost its privileges, say) costs one
 * reload rather than one on every poll; a reload that fails records nothing, so it is tried again at the next poll.
 */
export function readChangeToken(tokens: ChangeTokenSource): Promise<string> {
  return tokens
    .changeToken()
    .catch((error: unknown) => `${UNREADABLE}${(error as { code?: unknown } | null)?.code ?? 'error'}`);
}

const UNREADABLE = 'unavailable:';

/** The code a stand-in token names, or undefined for a token that was read. */
export function unreadableCode(token: string): string | undefined {
  return token.startsWith(UNREADABLE) ? token.slice(UNREADABLE.length) : undefined;
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

/** A file modified less than this long ago may still be being written (a copy or an editor rewriting it in place). */
export const FILE_SETTLE_MS = 2_000;

/**
 * Device, inode, size, modification and status-change times in nanoseconds: an atomic replace (new inode) and an
 * in-place rewrite (new mtime or size) rotate it, and so does a rewrite that puts the old mtime back (`cp -p`, a
 * restored backup), which the kernel still stamps with a new ctime that no program can set.
 */
export function fileChangeToken(path: string, now: () => number = Date.now): ChangeTokenSource {
  return {
    async changeToken() {
      const info = await stat(path, { bigint: true });
      return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
    },
    settling(token) {
      // The mtime: a copy that keeps the source's times (`cp -p`, rsync, tar) sets it once the bytes are written,
      // so an old one means written out; an edit in place moves it with every write.
      const mtimeNs = /^\d+:\d+:\d+:(\d+):\d+$/.exec(token)?.[1];
      if (mtimeNs === undefined) return false;
      // An mtime in the future (clock skew) counts as recent: the token then has to hold still for one poll.
      return Number(BigInt(mtimeNs) / 1_000_000n) > now() - FILE_SETTLE_MS;
    },
  };
}
