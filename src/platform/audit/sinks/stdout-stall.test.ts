// The stdout sink when its reader stops: a child process writes audit records to a pipe this process does not read.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { verifyAuditChain } from '../audit-envelope.ts';
import { TEST_SECRET } from '../audit-test-support.ts';

const here = (file: string) => JSON.stringify(new URL(file, import.meta.url).href);

/**
 * Writes batches of large records until one fails (the pipe is full), then three more, and reports each record's
 * outcome; once told the pipe is read again, writes batches until one is written, and reports it.
 */
const CHILD = `
import { createAuditWriter } from ${here('../create-audit-writer.ts')};
import { sampleRecord, writerOptions } from ${here('../audit-test-support.ts')};
// As the CLI's entry does: standard output, a pipe here, becomes non-blocking.
process.stdout;
const writer = createAuditWriter(writerOptions({ sink: 'stdout' }));
let n = 0;
const batch = () =>
  Promise.all(Array.from({ length: 8 }, () => new Promise((resolve) =>
    writer.enqueue({ ...sampleRecord(++n), pad: 'x'.repeat(8000) }, resolve))));
const outcomes = (answers) => answers.map((answer) =>
  answer === undefined ? 'written' : answer.code + ': ' + (answer.cause?.message ?? ''));
let first;
for (let i = 0; i < 200 && first === undefined; i++) {
  const answers = await batch();
  if (answers.some((answer) => answer !== undefined)) first = outcomes(answers);
}
const later = [];
for (let i = 0; i < 3; i++) later.push(outcomes(await batch()));
process.send({ first, later });
process.once('message', async () => {
  let answers;
  for (let i = 0; i < 500; i++) {
    answers = await batch();
    if (answers.every((answer) => answer === undefined)) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await writer.close();
  process.send({ recovered: outcomes(answers), lastHash: writer.lastHash }, () => process.disconnect());
});
`;

interface Stalled {
  first: string[];
  later: string[][];
}
interface Recovered {
  recovered: string[];
  lastHash: string;
}

describe('stdout sink whose reader stops taking output', () => {
  it('fails the batch that waited for the reader, fails later batches at once without waiting, and recovers once the pipe is read', async (t) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    t.after(() => child.kill('SIGKILL'));
    const [stalled] = (await once(child, 'message')) as [Stalled];
    assert.ok(stalled.first !== undefined, 'a batch found the pipe full');
    for (const outcome of stalled.first) {
      assert.match(outcome, /^audit\.write_failed: audit sink stalled: /);
      assert.doesNotMatch(outcome, /not waited/, 'the first batch waited for the reader');
    }
    assert.equal(stalled.later.length, 3);
    for (const outcome of stalled.later.flat()) {
      assert.match(outcome, /^audit\.write_failed: .*its reader still takes nothing: not waited for again/);
    }
    // The reader comes back.
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.send('reading');
    const [recovered] = (await once(child, 'message')) as [Recovered];
    assert.deepEqual(recovered.recovered, Array(8).fill('written'));
    await once(child, 'exit');
    const lines = Buffer.concat(chunks).toString('utf8').split('\n');
    assert.equal(lines.pop(), '');
    // A batch the stall cut short was finished ahead of the next write: the output is one whole chain.
    const checked = verifyAuditChain(lines, TEST_SECRET, null);
    assert.equal(checked.ok, true);
    assert.equal(checked.ok && checked.lastHash, recovered.lastHash);
  });
});
