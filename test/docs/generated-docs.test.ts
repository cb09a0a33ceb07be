// Drift checks for the generated docs: the committed files equal the generator output and cover every code.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GENERATED_DOCS } from '../../scripts/docs/generated-docs.ts';
import { renderConfigDoc } from '../../scripts/docs/render-config-doc.ts';
import { PROBLEM_CATALOGUES, renderErrorsDoc, statusCell } from '../../scripts/docs/render-errors-doc.ts';
import { schemaRows } from '../../scripts/docs/schema-rows.ts';
import { relayConfigSchema } from '../../src/relay/config/schema.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

describe('committed generated docs', () => {
  for (const doc of GENERATED_DOCS) {
    it(`${doc.path} matches the generator (run \`npm run docs:gen\` when this fails)`, () => {
      assert.equal(read(doc.path), doc.render(), `${doc.path} is stale: run \`npm run docs:gen\``);
    });
  }

  it('are deterministic', () => {
    for (const doc of GENERATED_DOCS) assert.equal(doc.render(), doc.render());
  });
});

describe('docs/errors.md', () => {
  const text = read('docs/errors.md');
  const catalogued = new Map(PROBLEM_CATALOGUES.flatMap(({ catalog }) => Object.entries(catalog)));
  // Codes are the first cell of each table row: | `family.name` | status (service: status) | ...
  const documented = [
    ...text.matchAll(/^\| `([a-z0-9_]+\.[a-z0-9_.]+)` \| (\d{3})(?: \([a-z]+: \d{3}\))? \| /gm),
  ].map((match) => ({
    code: match[1] as string,
    status: Number(match[2]),
  }));

  it('lists every catalogued code with its status and title', () => {
    assert.ok(catalogued.size > 0);
    for (const [code, entry] of catalogued) {
      const row = text.split('\n').find((line) => line.startsWith(`| \`${code}\` |`));
      assert.ok(row, `${code} is missing from docs/errors.md`);
      assert.ok(
        row.includes(` | ${statusCell(entry)} | ${entry.title} | `),
        `${code} row is out of date: ${row}`,
      );
    }
  });

  it('gives a service its own status where its contract differs', () => {
    const row = text.split('\n').find((line) => line.startsWith('| `audit.write_failed` |'));
    assert.match(row ?? '', /^\| `audit\.write_failed` \| 503 \(verifier: 500\) \| Audit unavailable \| /);
  });

  it('lists no code that is not catalogued, and none twice', () => {
    for (const { code } of documented)
      assert.ok(catalogued.has(code), `${code} is documented but not catalogued`);
    assert.equal(new Set(documented.map((row) => row.code)).size, documented.length);
    assert.equal(documented.length, catalogued.size);
  });

  it('has no code in two catalogues', () => {
    const total = PROBLEM_CATALOGUES.reduce((sum, { catalog }) => sum + Object.keys(catalog).length, 0);
    assert.equal(total, catalogued.size);
  });

  it('groups codes by family under sorted headings, codes sorted within each', () => {
    const families = [...text.matchAll(/^## `([a-z0-9_]+)\.\*`$/gm)].map((match) => match[1] as string);
    assert.deepEqual(families, [...families].sort());
    assert.deepEqual(families, [...new Set(documented.map(({ code }) => code.split('.')[0]))]);
    const codes = documented.map(({ code }) => code);
    assert.deepEqual(codes, [...codes].sort());
    assert.match(renderErrorsDoc(), /^# Error codes\n/);
  });
});

describe('docs/configuration.md', () => {
  const text = renderConfigDoc();
  const rows = schemaRows(relayConfigSchema);

  it('has one row per dotted key of the schema, lists written as []', () => {
    const keys = rows.map((row) => row.key);
    assert.equal(new Set(keys).size, keys.length);
    for (const key of [
      'server.bind',
      'auth.api_keys[].fingerprint.commitment',
      'datasets[].tables[].id',
      'datasets[].tables[].schema.fields[].type',
      'datasets[].entities[].api.allowed_filters[].ops',
    ]) {
      assert.ok(keys.includes(key), `no row for ${key}`);
      assert.ok(text.includes(`| \`${key}\` |`), `${key} is not in the rendered table`);
    }
  });

  it('shows type, required, default and the .describe() text', () => {
    const row = (key: string) => text.split('\n').find((line) => line.startsWith(`| \`${key}\` |`)) ?? '';
    assert.equal(
      row('server.bind'),
      '| `server.bind` | string | yes |  | Data-plane listen address, host:port (port 0 to 65535; IPv6 hosts in ' +
        'brackets). `--bind` overrides it. |',
    );
    assert.equal(
      row('server.request_timeout'),
      '| `server.request_timeout` | duration | no | `30s` | Requests running longer answer 504 (at most 1h). |',
    );
    assert.match(row('auth.mode'), /\| `api_key` \\\| `oidc` \| yes \|/);
    assert.match(
      row('datasets[].entities[].api.default_limit'),
      /\| integer \| no \| `50` \| >= 1, <= 10000\. \|$/,
    );
    assert.match(row('datasets[].tables[].schema.fields'), /\| list of mappings \| yes \|/);
  });

  it('documents every removed key', () => {
    for (const key of [
      'auth.oidc.audience',
      'datasets[].entities[].aggregates',
      'datasets[].entities[].row_scope',
    ]) {
      assert.ok(text.includes(`| \`${key}\` |`), key);
    }
  });

  it('lists every code a config problem or a data load can carry, as the code emits them', () => {
    // Codes are string literals in src: `code: 'family.name'`, the audit sink's own helper, and every `ingest.*`.
    const emitted = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const source = readFileSync(file, 'utf8');
      for (const pattern of [
        /code: '((?:config|metadata|runtime|audit)\.[a-z_.]+)'/g,
        /auditIssue\(\s*'([a-z_.]+)'/g,
        /'(ingest\.[a-z_]+)'/g,
      ]) {
        for (const match of source.matchAll(pattern)) emitted.add(match[1] as string);
      }
    }
    const problems = new Set(PROBLEM_CATALOGUES.flatMap(({ catalog }) => Object.keys(catalog)));
    for (const code of ['audit.chain_invalid', 'audit.sink_unavailable', 'ingest.sheet_not_found'])
      assert.ok(emitted.has(code), `the scan misses ${code}`);
    for (const code of emitted) {
      if (problems.has(code)) continue;
      assert.ok(text.includes(`| \`${code}\` | `), `${code} is emitted but not in docs/configuration.md`);
    }
  });

  it('keeps every table row well formed (five cells)', () => {
    const tableRows = text
      .split('\n')
      .filter((line) => line.startsWith('| `') && !line.startsWith('| `config.'));
    for (const line of tableRows) {
      const cells = line.replace(/\\\|/g, '').split('|').length - 2;
      assert.ok(cells === 5 || cells === 2, `malformed row: ${line}`);
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('npm run docs:check', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-docs-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['bin/run-ts.js', 'scripts/gen-docs.ts', ...args, '--root', dir], {
      cwd: ROOT,
      encoding: 'utf8',
    });

  it('fails naming each missing file, then passes once docs:gen wrote them', () => {
    const missing = run('--check');
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /docs\/errors\.md is missing/);
    assert.match(missing.stderr, /docs\/configuration\.md is missing/);
    assert.match(missing.stderr, /npm run docs:gen/);

    const generate = run();
    assert.equal(generate.status, 0, generate.stderr);
    for (const doc of GENERATED_DOCS) assert.equal(readFileSync(join(dir, doc.path), 'utf8'), doc.render());
    assert.equal(run('--check').status, 0);
  });

  it('fails naming only the file that drifted', () => {
    assert.equal(run().status, 0);
    const file = join(dir, 'docs/configuration.md');
    writeFileSync(file, `${readFileSync(file, 'utf8')}\nA hand edit.\n`);
    const result = run('--check');
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^docs\/configuration\.md is stale/m);
    assert.doesNotMatch(result.stderr, /errors\.md/);
  });

  it('rejects an unknown argument', () => {
    const result = run('--chek');
    assert.equal(result.status, 2);
    assert.match(result.stderr, /--chek/);
  });
});
