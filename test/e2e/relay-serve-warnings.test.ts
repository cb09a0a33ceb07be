// `ambit relay serve` says what its config warns about once, at start: by the single process, or by the primary of
// `--workers N` (each worker loads the config too, and says nothing of it).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { writePeopleServeConfig } from './people-serve-config.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'serve-warning-test-key-0000000000001';
const WARNING =
  /dataset people, aggregate by_person: dimension who groups by id, and entity person requires an equality filter on id/g;

function config(dir: string, minCellSize: number): string {
  return writePeopleServeConfig(dir, {
    name: `relay-${minCellSize}.yaml`,
    entity: 'api: { required_filters: [id], allowed_filters: [{ field: id, ops: [eq] }] }',
    aggregates: `    aggregates:
      - id: by_person
        source_entity: person
        dimensions: [{ id: who, field: id }]
        indicators: [{ id: people, function: count }]
        disclosure_control: { min_cell_size: ${minCellSize} }
`,
  });
}

/** Runs to its end: the sources hold a bad row, so the start fails after the config has loaded. */
async function failedStart(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: unknown; output: string }> {
  const child = spawn(process.execPath, ['bin/ambit.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  return { code, output };
}

describe('ambit relay serve: config warnings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-serve-warnings-'));
  const env = { READER_HASH: fingerprintOf(KEY), AUDIT_SECRET: 'serve-test-audit-secret-0123456789abcdef' };
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'people.csv'), 'id,born\n1,2001-02-03\n2,2001-02-30\n');

  it('logs the warning once, as a warn record, before loading the sources', async () => {
    const { code, output } = await failedStart(['relay', 'serve', '--config', config(dir, 1)], env);
    assert.equal(code, 1, output);
    assert.equal(output.match(WARNING)?.length, 1, output);
    const record = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .find((line) => line.msg.includes('aggregate by_person'));
    assert.equal(record?.level, 40, output);
    assert.ok(output.indexOf('aggregate by_person') < output.indexOf('ingest.type_mismatch'), output);
  });

  it('with --workers, logs it once, in the primary', async () => {
    const { code, output } = await failedStart(
      ['relay', 'serve', '--config', config(dir, 1), '--workers', '2'],
      env,
    );
    assert.equal(code, 1, output);
    assert.equal(output.match(WARNING)?.length, 1, output);
  });

  it('logs nothing of the kind when small groups are omitted at a minimum cell size of 2', async () => {
    const { code, output } = await failedStart(['relay', 'serve', '--config', config(dir, 2)], env);
    assert.equal(code, 1, output);
    assert.doesNotMatch(output, /aggregate by_person/);
    assert.match(output, /ingest\.type_mismatch/);
  });
});
