// The batch scenario: 100-subject batch evaluations, counting the upstream requests each one makes in the
// relay's own audit trail (one record per request), and timing each batch.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { PURPOSE, subjectIds } from './scenarios.ts';

export const BATCH_SUBJECTS = 100;

export interface BatchRun {
  readonly upstreamRequests: number;
  readonly ms: number;
}

export interface BatchSet {
  readonly claims: readonly string[];
  /** Source bindings behind the claims: the most upstream requests a batch may make. */
  readonly bindings: number;
  readonly runs: readonly BatchRun[];
}

export type BatchResult =
  | { readonly available: false; readonly note: string }
  | {
      readonly available: true;
      readonly subjects: number;
      readonly runsPerSet: number;
      readonly sets: readonly BatchSet[];
      readonly met: boolean;
    };

const CLAIM_SETS = [
  { claims: ['enrolled'], bindings: 1 },
  { claims: ['enrolled', 'large_household'], bindings: 2 },
];

export async function measureBatches(options: {
  verifierUrl: string;
  callerKey: string;
  relayAuditPath: string;
  runs: number;
}): Promise<BatchResult> {
  const post = (body: unknown) =>
    fetch(`${options.verifierUrl}/v1/batch-evaluations`, {
      method: 'POST',
      headers: {
        'x-api-key': options.callerKey,
        'content-type': 'application/json',
        'data-purpose': PURPOSE,
      },
      body: JSON.stringify(body),
    });
  const probe = await post({ items: [{ target: { type: 'person', id: 'R0000001' } }], claims: ['enrolled'] });
  if (probe.status === 404) {
    return {
      available: false,
      note: 'POST /v1/batch-evaluations is not available in this build; not measured.',
    };
  }
  assert.equal(probe.status, 200, await probe.text());

  const sets: BatchSet[] = [];
  let offset = 50_000;
  for (const set of CLAIM_SETS) {
    const runs: BatchRun[] = [];
    for (let run = 0; run < options.runs; run++) {
      // Fresh subjects every run, so nothing a previous batch read can be reused.
      const ids = subjectIds(BATCH_SUBJECTS, offset);
      offset += BATCH_SUBJECTS;
      const before = upstreamReads(options.relayAuditPath);
      const started = performance.now();
      const response = await post({
        items: ids.map((id) => ({ target: { type: 'person', id } })),
        claims: set.claims,
      });
      const text = await response.text();
      const ms = performance.now() - started;
      assert.equal(response.status, 200, text);
      const body = JSON.parse(text) as { summary: { succeeded: number; failed: number } };
      assert.deepEqual(body.summary, { succeeded: BATCH_SUBJECTS, failed: 0 }, text.slice(0, 2000));
      runs.push({ upstreamRequests: upstreamReads(options.relayAuditPath) - before, ms });
      console.log(
        `batch ${set.claims.join('+')} run ${run + 1}: ${runs.at(-1)?.upstreamRequests} upstream requests, ${ms.toFixed(0)} ms`,
      );
    }
    sets.push({ ...set, runs });
  }
  const met = sets.every((set) => set.runs.every((run) => run.upstreamRequests <= set.bindings));
  return { available: true, subjects: BATCH_SUBJECTS, runsPerSet: options.runs, sets, met };
}

/** Record reads the relay has audited so far (its audit write is synchronous, so a finished read is counted). */
function upstreamReads(path: string): number {
  if (!existsSync(path)) return 0;
  let count = 0;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.includes('"endpoint_kind":"rows"')) count++;
  }
  return count;
}
