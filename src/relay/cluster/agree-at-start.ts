// `--workers N`: each worker reads the sources itself at its first start, each at its own moment, so a source
// written to between their reads leaves them serving different data, and with `refresh.mode: manual` nothing would
// ever bring them together: every other request would answer other rows, under another ETag, refusing the other
// worker's cursors. Once every worker serves data, the primary compares what they serve and, when it differs,
// reloads every worker as an admin reload does (which reads again and names what still differs).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../../platform/log.ts';
import type { ProcessStatus } from '../admin/admin-backend.ts';
import type { ReloadOutcome } from '../reload/reload-outcome.ts';

/** How often the workers are asked whether they serve data yet (a first load may wait for its database). */
export const AGREE_POLL_MS = 1000;

export async function agreeAtStart(options: {
  status(): Promise<ProcessStatus[]>;
  reloadAll(): Promise<ReloadOutcome>;
  logger: Logger;
  /** Aborted when the relay stops: nothing more is asked. */
  signal: AbortSignal;
  pollMs?: number;
}): Promise<void> {
  const { logger, signal } = options;
  let statuses = await options.status();
  while (!statuses.every((status) => status.running && status.ready)) {
    try {
      await sleep(options.pollMs ?? AGREE_POLL_MS, undefined, { signal });
    } catch {
      return;
    }
    statuses = await options.status();
  }
  if (signal.aborted || new Set(statuses.map((status) => status.generation)).size < 2) return;
  let outcome: ReloadOutcome;
  try {
    outcome = await options.reloadAll();
  } catch (error) {
    logger.warn(
      { err_message: error instanceof Error ? error.message : String(error) },
      'relay processes loaded different data at start; no process answered the reload that would bring them together',
    );
    return;
  }
  if (!outcome.ok) {
    logger.error(
      { failures: outcome.failures.map((f) => `${f.dataset_id}/${f.table_id}: ${f.code}`) },
      'relay processes loaded different data at start; the reload that would bring them together failed, so answers, ETags and cursors differ between them until a reload succeeds everywhere',
    );
  } else if (outcome.differing !== undefined && outcome.differing.length > 0) {
    logger.warn(
      { tables: outcome.differing.map((table) => `${table.dataset_id}/${table.table_id}`) },
      'relay processes loaded different data at start and still do after reloading: the source changes while they read it; answers, ETags and cursors differ between them until a reload agrees',
    );
  } else {
    logger.info('relay processes loaded different data at start; every one reloaded, and they now agree');
  }
}
