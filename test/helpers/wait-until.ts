// Waits for a condition a test cannot await directly (a read reaching a fake relay, an audit event written).
import assert from 'node:assert/strict';

/** Polls `check` every 10 ms; the 15 s cap only makes a broken build fail rather than hang: the condition decides. */
export async function until(what: string, check: () => boolean): Promise<void> {
  const giveUp = Date.now() + 15_000;
  while (!check()) {
    assert.ok(Date.now() < giveUp, `timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
