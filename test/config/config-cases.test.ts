// Golden config cases: each invalid/<case>.yaml fails with exactly the issues in <case>.expected.json, each valid/<case>.yaml loads.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONFIG_ISSUE_CODES } from '../../scripts/docs/config-issue-codes.ts';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { ConfigError, type ConfigIssue, formatIssue } from '../../src/platform/config/config-error.ts';
import { readEnvFile } from '../../src/platform/config/read-env-file.ts';
import { type LoadedRelayConfig, loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { DEMO_DIR, demoEnv } from '../helpers/relay-harness.ts';

const INVALID = fileURLToPath(new URL('./invalid/', import.meta.url));
const VALID = fileURLToPath(new URL('./valid/', import.meta.url));

/** The environment every case sees; a case adds to it with a sibling `<case>.env` file. */
const BASE_ENV: Readonly<Record<string, string>> = {
  READER_HASH: fingerprintOf('reader-key'),
  AUDIT_SECRET: 'audit-secret-for-config-tests-0123456789',
};

/** The fixtures the reference relay's own validation suite has, under our names: none may go missing. */
const REQUIRED_INVALID_CASES = [
  'unknown-top-level-key',
  'duplicate-dataset-id',
  'invalid-scope',
  'missing-env',
  'invalid-api-key-fingerprint',
  'unknown-vocab-prefix',
  'invalid-authority-type',
  'invalid-publisher-iri',
  'invalid-default-spatial-coverage',
  'invalid-dataset-spatial-coverage',
  'allowed-filter-unknown-field',
];

interface ExpectedIssue {
  readonly path: string;
  readonly code: string;
  /** A regular expression the message must match. */
  readonly message?: string;
}

function caseNames(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => name.slice(0, -'.yaml'.length))
    .sort();
}

function caseEnv(dir: string, name: string): Record<string, string> {
  const file = join(dir, `${name}.env`);
  return existsSync(file) ? { ...BASE_ENV, ...readEnvFile(file) } : { ...BASE_ENV };
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

function loadError(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  assert.fail('expected the config to be rejected');
}

const key = (issue: { path: string; code: string }) => `${issue.code} @ ${issue.path}`;

function valueAt(root: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((node, segment) => {
    if (node === null || typeof node !== 'object') return undefined;
    return (node as Record<string, unknown>)[segment];
  }, root);
}

describe('invalid config cases', () => {
  const names = caseNames(INVALID);

  it('include every case of the reference validation suite', () => {
    for (const name of REQUIRED_INVALID_CASES) assert.ok(names.includes(name), `missing case ${name}`);
  });

  it('pair every config with an expected issue list and nothing else', () => {
    const files = readdirSync(INVALID);
    for (const name of names)
      assert.ok(files.includes(`${name}.expected.json`), `${name} has no expected file`);
    for (const file of files) {
      const base = file.replace(/\.(yaml|expected\.json|env)$/, '');
      assert.ok(names.includes(base), `${file} belongs to no case`);
    }
  });

  for (const name of names) {
    it(`${name} is rejected with exactly the expected issues`, () => {
      const expected = readJson<ExpectedIssue[]>(join(INVALID, `${name}.expected.json`));
      assert.ok(expected.length > 0, 'an invalid case expects at least one issue');
      const error = loadError(() => loadRelayConfig(join(INVALID, `${name}.yaml`), caseEnv(INVALID, name)));
      assert.deepEqual(error.issues.map(key).sort(), expected.map(key).sort(), formatIssues(error.issues));
      for (const want of expected) {
        if (want.message === undefined) continue;
        const pattern = new RegExp(want.message);
        const candidates = error.issues.filter((issue) => key(issue) === key(want));
        assert.ok(
          candidates.some((issue) => pattern.test(issue.message)),
          `${key(want)}: no message matches /${want.message}/ in\n${formatIssues(candidates)}`,
        );
      }
      // The thrown error's text lists every issue, which is what `ambit config check` prints.
      for (const issue of error.issues) assert.ok(error.message.includes(formatIssue(issue)));
      // It never quotes a value of the environment: those are secrets (keys, URLs with passwords).
      for (const value of Object.values(caseEnv(INVALID, name))) {
        if (value !== undefined && value.length >= 8)
          assert.ok(!error.message.includes(value), `${name} quotes a value`);
      }
    });
  }

  it('report several mistakes of one file in a single run', () => {
    for (const name of ['many-shape-errors', 'many-semantic-errors']) {
      const error = loadError(() => loadRelayConfig(join(INVALID, `${name}.yaml`), caseEnv(INVALID, name)));
      const paths = new Set(error.issues.map((issue) => issue.path));
      assert.ok(paths.size >= 5, `${name}: only ${paths.size} distinct paths`);
    }
  });

  it('use only issue codes documented in docs/configuration.md', () => {
    const documented = new Set(Object.keys(CONFIG_ISSUE_CODES));
    for (const name of names) {
      for (const issue of readJson<ExpectedIssue[]>(join(INVALID, `${name}.expected.json`))) {
        assert.ok(documented.has(issue.code), `${name}: ${issue.code} is not documented`);
      }
    }
  });

  it('report an unreadable config file without a stack trace', () => {
    const error = loadError(() => loadRelayConfig(join(INVALID, 'no-such-file.yaml'), BASE_ENV));
    assert.deepEqual(error.issues.map(key), ['config.file_unreadable @ ']);
    assert.match(error.issues[0]?.message ?? '', /no-such-file\.yaml/);
  });
});

describe('valid config cases', () => {
  const names = caseNames(VALID);

  it('include a minimal, an OIDC and an API-key commitment config', () => {
    for (const name of ['minimal', 'oidc', 'api-key-commitment', 'env-defaults'])
      assert.ok(names.includes(name));
  });

  for (const name of names) {
    it(`${name} loads with the expected values`, () => {
      let loaded: LoadedRelayConfig;
      try {
        loaded = loadRelayConfig(join(VALID, `${name}.yaml`), caseEnv(VALID, name));
      } catch (error) {
        if (error instanceof ConfigError) assert.fail(`${name} was rejected:\n${error.message}`);
        throw error;
      }
      assert.equal(loaded.baseDir, VALID.replace(/\/$/, ''));
      assert.ok(Object.isFrozen(loaded.config) && Object.isFrozen(loaded.config.server));
      const valuesFile = join(VALID, `${name}.values.json`);
      if (!existsSync(valuesFile)) return;
      for (const [path, value] of Object.entries(readJson<Record<string, unknown>>(valuesFile))) {
        assert.deepEqual(valueAt(loaded.config, path), value, path);
      }
    });
  }

  it('resolve key fingerprints and secrets from the environment', () => {
    const loaded = loadRelayConfig(join(VALID, 'minimal.yaml'), BASE_ENV);
    assert.deepEqual(loaded.secrets.apiKeys, [
      { id: 'reader', fingerprint: fingerprintOf('reader-key'), scopes: ['people:metadata', 'people:rows'] },
    ]);
    assert.equal(loaded.secrets.auditSecret.toString('utf8'), BASE_ENV.AUDIT_SECRET);
    assert.equal(loaded.secrets.cursorSecretDerived, true);
    assert.equal(loaded.secrets.cursorSecret.length, 32);
  });

  it('derive one cursor secret per audit secret when none is configured, so processes agree', () => {
    const file = join(VALID, 'minimal.yaml');
    const first = loadRelayConfig(file, BASE_ENV).secrets;
    const second = loadRelayConfig(file, BASE_ENV).secrets;
    assert.deepEqual(first.cursorSecret, second.cursorSecret);
    assert.notDeepEqual(first.cursorSecret, first.auditSecret.subarray(0, 32));
    const other = loadRelayConfig(file, { ...BASE_ENV, AUDIT_SECRET: 'b'.repeat(40) }).secrets;
    assert.notDeepEqual(other.cursorSecret, first.cursorSecret);
  });

  it('accept exactly 32 bytes of audit secret and reject 31', () => {
    const file = join(VALID, 'minimal.yaml');
    assert.doesNotThrow(() => loadRelayConfig(file, { ...BASE_ENV, AUDIT_SECRET: 'a'.repeat(32) }));
    const error = loadError(() => loadRelayConfig(file, { ...BASE_ENV, AUDIT_SECRET: 'a'.repeat(31) }));
    assert.deepEqual(error.issues.map(key), ['config.validation_error @ audit.hash_secret_env']);
  });

  it('let a set variable win over the `:-` default', () => {
    const loaded = loadRelayConfig(join(VALID, 'env-defaults.yaml'), {
      ...caseEnv(VALID, 'env-defaults'),
      RELAY_BIND: '0.0.0.0:8443',
    });
    assert.equal(loaded.config.server.bind, '0.0.0.0:8443');
  });
});

describe('the demo config', () => {
  const demoConfig = join(DEMO_DIR, 'relay.yaml');

  it('loads with the test harness environment', () => {
    const loaded = loadRelayConfig(demoConfig, demoEnv());
    assert.deepEqual(
      loaded.config.datasets.map((dataset) => dataset.id),
      ['civil_registry', 'social_protection', 'health_facilities'],
    );
    assert.equal(loaded.secrets.apiKeys.length, 6);
    assert.equal(loaded.secrets.cursorSecretDerived, false);
    // Only civil registry persons require a filter, and no relationship or aggregate reaches their ids.
    assert.deepEqual(loaded.warnings, []);
  });

  it('refuses a cursor secret that is the audit secret: one key would sign both', () => {
    const env = demoEnv();
    const error = loadError(() =>
      loadRelayConfig(demoConfig, { ...env, AMBIT_DEMO_CURSOR_SECRET: env.AMBIT_DEMO_AUDIT_SECRET }),
    );
    assert.deepEqual(error.issues.map(key), ['config.validation_error @ server.cursor_secret_env']);
    assert.match(error.issues[0]?.message ?? '', /audit secret/);
  });

  it('names every missing persona fingerprint at once', () => {
    const env = { AMBIT_DEMO_AUDIT_SECRET: demoEnv().AMBIT_DEMO_AUDIT_SECRET ?? '' };
    const error = loadError(() => loadRelayConfig(demoConfig, env));
    const missing = error.issues.filter((issue) => issue.code === 'config.missing_secret');
    assert.equal(missing.length, 7, formatIssues(error.issues));
    assert.ok(missing.some((issue) => issue.path === 'server.cursor_secret_env'));
  });
});

function formatIssues(issues: readonly ConfigIssue[]): string {
  return issues.map(formatIssue).join('\n');
}
