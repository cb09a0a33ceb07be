// A reload under `--workers`: every worker loads the sources itself. When the load fails in some while the others
// swap, the failed ones are asked once more, so that a failure of the moment (a file caught mid-replacement) does
// not leave the processes serving different data; what still differs is reported as a split (combineOutcomes).
// A load that succeeds everywhere can differ too (a database written to, or a file replaced, between two workers'
// reads): then every worker is asked once more, and the tables still differing are reported.
import { combineOutcomes } from '../admin/admin-backend.ts';
import type { ReloadOutcome } from '../reload/reloader.ts';

export async function reloadEverywhere<W>(
  workers: readonly W[],
  reload: (worker: W) => Promise<ReloadOutcome>,
): Promise<ReloadOutcome> {
  const outcomes = (await Promise.allSettled(workers.map(reload))).map((answer) =>
    answer.status === 'fulfilled' ? answer.value : undefined,
  );
  const askAgain = async (which: readonly number[]) => {
    const again = await Promise.allSettled(which.map((k) => reload(workers[k] as W)));
    again.forEach((answer, n) => {
      if (answer.status === 'fulfilled') outcomes[which[n] as number] = answer.value;
    });
  };
  const failed = outcomes.flatMap((outcome, k) =>
    outcome?.ok === false && !outcome.firstLoadRunning ? [k] : [],
  );
  if (failed.length > 0 && outcomes.some((outcome) => outcome?.ok === true)) await askAgain(failed);
  if (differingTables(outcomes).length > 0) {
    // Which worker read the newer data is unknown: all read again, and those that have it swap nothing.
    await askAgain(outcomes.flatMap((outcome, k) => (outcome?.ok === true ? [k] : [])));
  }
  // A worker that died or did not answer meanwhile is left out: it loads everything as it starts again.
  const answered = outcomes.filter((outcome): outcome is ReloadOutcome => outcome !== undefined);
  if (answered.length === 0) throw new Error('no worker answered the reload');
  const differing = differingTables(answered);
  return { ...combineOutcomes(answered), ...(differing.length > 0 ? { differing } : {}) };
}

/** The tables that every worker reloaded, and some of them to another version than the others. */
function differingTables(
  outcomes: readonly (ReloadOutcome | undefined)[],
): { dataset_id: string; table_id: string }[] {
  const succeeded = outcomes.filter((outcome) => outcome?.ok === true && outcome.versions !== undefined);
  if (succeeded.length < 2 || succeeded.length !== outcomes.filter((o) => o !== undefined).length) return [];
  const versions = new Map<string, { dataset_id: string; table_id: string; seen: Set<string> }>();
  for (const outcome of succeeded) {
    for (const { dataset_id, table_id, version } of outcome?.versions ?? []) {
      const key = `${dataset_id}/${table_id}`;
      const entry = versions.get(key) ?? { dataset_id, table_id, seen: new Set<string>() };
      entry.seen.add(version);
      versions.set(key, entry);
    }
  }
  return [...versions.values()]
    .filter((entry) => entry.seen.size > 1)
    .map(({ dataset_id, table_id }) => ({ dataset_id, table_id }));
}
