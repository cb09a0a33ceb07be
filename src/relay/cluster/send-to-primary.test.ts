// A worker's late answer (a reload that ends after the worker, asked to stop, closed its channel to the primary)
// is dropped: sent on the closed channel, it would crash the worker with an unhandled ERR_IPC_CHANNEL_CLOSED.
import assert from 'node:assert/strict';
import cluster from 'node:cluster';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const MODULE = new URL('./stdout-through-primary.ts', import.meta.url).href;

describe('sendToPrimary', () => {
  it('drops a message once the channel to the primary is closed, and the worker exits 0', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-send-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const stub = join(dir, 'late-answer.mjs');
    writeFileSync(
      stub,
      `import cluster from 'node:cluster';
const { sendToPrimary } = await import(${JSON.stringify(MODULE)});
cluster.worker.disconnect();
process.once('disconnect', () =>
  sendToPrimary({ kind: 'ambit:response', id: 1, ok: true, result: { ok: true } }),
);
`,
    );
    cluster.setupPrimary({ exec: stub, args: [], execArgv: ['--import', 'tsx'], silent: true });
    const worker = cluster.fork();
    let stderr = '';
    worker.process.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => worker.once('exit', (exitCode) => resolve(exitCode)));
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /ERR_IPC_CHANNEL_CLOSED/);
  });
});
