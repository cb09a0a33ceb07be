// A reload under `--workers`: every worker loads the sources itself. When the load fails in some while the others
// swap, the failed ones are asked once more, so that a failure of the moment (a file caught mid-replacement) does
// not leave the processes serving different data; what still differs is reported as a split (combineOutcomes).
import { combineOutcomes } from '../admin/admin-backend.ts';
import type { ReloadOutcome } from '../reload/reloader.ts';

export async function reloadEverywhere<W>(
  workers: readonly W[],
  reload: (worker: W) => Promise<ReloadOutcome>,
): Promise<ReloadOutcome> {
  const outcomes = (await Promise.allSettled(workers.map(reload))).map((answer) =>
    answer.status === 'fulfilled' ? answer.value : undefined,
  );
  const failed = outcomes.flatMap((outcome, k) =>
    outcome?.ok === false && !outcome.firstLoadRunning ? [k] : [],
  );
  if (failed.length > 0 && outcomes.some((outcome) => outcome?.ok === true)) {
    const again = await Promise.allSettled(failed.map((k) => reload(workers[k] as W)));
    again.forEach((answer, n) => {
      if (answer.status === 'fulfilled') outcomes[failed[n] as number] = answer.value;
    });
  }
  // A worker that died or did not answer meanwhile is left out: it loads everything as it starts again.
  const answered = outcomes.filter((outcome): outcome is ReloadOutcome => outcome !== undefined);
  if (answered.length === 0) throw new Error('no worker answered the reload');
  return combineOutcomes(answered);
}
