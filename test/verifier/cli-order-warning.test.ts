// `ambit config check` on a verifier config whose claim orders caller input against a record value: it loads, and
// says that a caller can bisect the value with repeated evaluations (docs/verifier.md, Disclosure).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BASE, ENV } from '../../src/verifier/config/verifier-config-test-support.ts';
import { useScratchDir } from '../cli/cli-fixture.ts';
import { DEMO_DIR, demoEnv, TEST_KEYS } from '../helpers/relay-harness.ts';
import { runCli } from '../helpers/run-cli.ts';

/** The shared minimal config (claim `alive`), its claim reading `birth_date` under the given rule. */
const config = (expression: string) =>
  `server: { bind: 127.0.0.1:0 }\n${BASE}`
    .replace('fields: [deceased]', 'fields: [birth_date]')
    .replace('"!source.p.deceased"', JSON.stringify(expression));

const scratch = useScratchDir();

describe('ambit config check: a claim ordering caller input against a record value', () => {
  it('prints the ok line, then a warning naming the claim and the comparison, and exits 0', async () => {
    const path = join(scratch.dir, 'ordered.yaml');
    writeFileSync(path, config('source.p.birth_date >= ctx.target.attributes.born_after'));
    const result = await runCli(['config', 'check', '--config', path], ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.deepEqual(result.err, []);
    assert.deepEqual(result.out, [
      `ok: ${path} (verifier, 1 claim, 1 source connection, auth api_key)`,
      '  warning: claim alive compares caller input with a record value by order (source.p.birth_date >= ctx.target.attributes.born_after): a caller can find the value by repeated evaluations; compare for equality, or limit who may evaluate it (docs/verifier.md, Disclosure)',
    ]);
  });

  it('prints no warning for an equality with caller input', async () => {
    const path = join(scratch.dir, 'equal.yaml');
    writeFileSync(path, config('source.p.birth_date == ctx.target.attributes.birth_date'));
    const result = await runCli(['config', 'check', '--config', path], ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.deepEqual(result.out, [`ok: ${path} (verifier, 1 claim, 1 source connection, auth api_key)`]);
  });

  it('prints no such warning for the demo config', async () => {
    const env = demoEnv({ AMBIT_DEMO_VERIFIER_SERVICE_KEY: TEST_KEYS.verifier_service });
    const result = await runCli(['config', 'check', '--config', join(DEMO_DIR, 'verifier.yaml')], env);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.match(result.out[0] ?? '', /^ok: .*verifier\.yaml \(verifier, /);
    assert.deepEqual(
      result.out.filter((line) => line.includes('by order')),
      [],
    );
  });
});
