// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write config text with ${VAR} references.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConfigIssue } from './config-error.ts';
import { parseConfigText } from './load-config-file.ts';
import { refusalIssues } from './refusal-issues.ts';

type Env = Record<string, string>;

function parse(text: string, env: Env = {}): unknown {
  return parseConfigText(text, env);
}

function issuesOf(text: string, env: Env = {}): readonly ConfigIssue[] {
  return refusalIssues(() => parseConfigText(text, env));
}

/** Rejected at `line`, naming the variable and never quoting its value. */
function assertChangesStructure(text: string, env: Env, line: number): void {
  const issues = issuesOf(text, env);
  assert.deepEqual(
    issues.map((issue) => `${issue.code} @ ${issue.path}`),
    [`config.parse_error @ line ${line}`],
  );
  const message = issues[0]?.message ?? '';
  assert.match(message, /the value of VALUE would change the YAML/);
  assert.ok(!message.includes(env.VALUE as string), 'the value is quoted');
}

describe('a ${VAR} value that would change the YAML structure', () => {
  it('is refused when it holds a line break, which could add keys', () => {
    const text = 'server:\n  title: ${VALUE}\n  port: 1\n';
    assertChangesStructure(text, { VALUE: 'x\n  admin: true' }, 2);
    assertChangesStructure(text, { VALUE: 'x\r  admin: true' }, 2);
  });

  it('is refused when ` #` would cut it short as a comment', () => {
    assertChangesStructure('title: ${VALUE}\n', { VALUE: 'Office #1 of the registry' }, 1);
  });

  it('is refused when it starts a comment, which would drop it or the text after it', () => {
    assertChangesStructure('title: ${VALUE}\n', { VALUE: '#1 office' }, 1);
    assertChangesStructure('title: Office${VALUE}\n', { VALUE: ' #1' }, 1);
    assertChangesStructure('title: ${VALUE}#north\n', { VALUE: 'Office ' }, 1);
    assertChangesStructure('title: ${VALUE}#north\n', { VALUE: 'Office\t' }, 1);
    assertChangesStructure('title: Office${VALUE}#north\n', { VALUE: '\t' }, 1);
    assert.deepEqual(
      parse('title: Office # ${VALUE}\nnote: a${VALUE}\nquoted: "${SPACED}#1"\n', {
        VALUE: '#1',
        SPACED: 'No ',
      }),
      { title: 'Office', note: 'a#1', quoted: 'No #1' },
    );
  });

  it('is refused when a backslash before it in double quotes would make an escape of it', () => {
    assertChangesStructure('path: "C:\\${VALUE}"\n', { VALUE: 'temp' }, 1);
    assert.deepEqual(parse('path: "C:\\\\${VALUE}"\n', { VALUE: 'temp' }), { path: 'C:\\temp' });
  });

  it('is refused when it makes a list, a mapping, an alias or a block scalar', () => {
    for (const value of ['[x, y]', '{a: 1}', '*anchor', '&anchor x', '|block', '- item', 'key: value'])
      assertChangesStructure('a: 1\ntitle: ${VALUE}\n', { VALUE: value }, 2);
  });

  it('is refused when it adds items to a flow collection', () => {
    assertChangesStructure('a: [first, ${VALUE}]\n', { VALUE: 'x, y' }, 1);
    assertChangesStructure('a: { b: ${VALUE} }\n', { VALUE: 'x, c: 2' }, 1);
  });

  it('is refused when quotes or escapes would rewrite it inside a quoted scalar', () => {
    assertChangesStructure('path: "${VALUE}"\n', { VALUE: 'C:\\temp\\new' }, 1);
    assertChangesStructure('title: "${VALUE}"\n', { VALUE: 'say "hi"' }, 1);
    assertChangesStructure("title: '${VALUE}'\n", { VALUE: "it's" }, 1);
    assertChangesStructure('title: ${VALUE}\n', { VALUE: '"quoted"' }, 1);
  });

  it('keeps values that stay text of one scalar, typed as YAML types a plain scalar', () => {
    const text = [
      'port: ${PORT}',
      'url: https://${HOST}/path # ${IN_COMMENT}',
      'quoted: "${TEXT} and more"',
      "single: '${TEXT}'",
      'flow: [${PORT}, ${HOST}]',
      'padded: ${PADDED}',
      'block: |',
      '  a ${TEXT} line',
      'dsn: ${URL}',
      '',
    ].join('\n');
    const env = {
      PORT: '8080',
      HOST: 'relay.example.org',
      IN_COMMENT: 'anything: [#',
      TEXT: 'Office #1: north',
      PADDED: '  spaced  ',
      URL: 'postgres://u:p@db:5432/r?sslmode=require',
    };
    assert.deepEqual(parse(text, env), {
      port: 8080,
      url: 'https://relay.example.org/path',
      quoted: 'Office #1: north and more',
      single: 'Office #1: north',
      flow: [8080, 'relay.example.org'],
      padded: 'spaced',
      block: 'a Office #1: north line\n',
      dsn: 'postgres://u:p@db:5432/r?sslmode=require',
    });
  });

  it('reports later lines at their own line numbers, one issue per line', () => {
    const issues = issuesOf('a: ${VALUE}\nb: ${VALUE}\na: again\n', { VALUE: 'x\ny' });
    assert.deepEqual(
      issues.map((issue) => issue.path),
      ['line 1', 'line 2', 'line 3'],
    );
  });
});

describe('YAML features outside YAML 1.2 core', () => {
  it('refuses a %YAML 1.1 directive, which would turn `on` into true and enable merge keys', () => {
    const issues = issuesOf('%YAML 1.1\n---\nd: &d { x: 1 }\ne:\n  <<: *d\nf: on\n');
    assert.deepEqual(
      issues.map((issue) => `${issue.code} @ ${issue.path}`),
      ['config.parse_error @ line 1'],
    );
    assert.match(issues[0]?.message ?? '', /YAML 1\.2/);
    assert.deepEqual(parse('%YAML 1.2\n---\nf: on\n'), { f: 'on' });
  });

  it('refuses tags it would otherwise ignore or turn into binary, set or date values', () => {
    const issues = issuesOf(
      'a: !custom x\nb: !!binary aGVsbG8=\nc: !!set { x }\nd: !!timestamp 2020-01-01\ne: !!omap [{ x: 1 }]\n',
    );
    assert.deepEqual(
      issues.map((issue) => `${issue.code} @ ${issue.path}`),
      [1, 2, 3, 4, 5].map((line) => `config.parse_error @ line ${line}`),
    );
    for (const issue of issues) assert.match(issue.message, /^unsupported tag/);
    assert.ok(!issues.some((issue) => /custom|binary/.test(issue.message)), 'a tag is quoted');
  });

  it('accepts the core tags', () => {
    assert.deepEqual(parse('a: !!str 5\nb: !!int "7"\nc: !!map { x: !!seq [1] }\n'), {
      a: '5',
      b: 7,
      c: { x: [1] },
    });
  });

  it('refuses a list or mapping as a key, by its line, without printing it anywhere', async (t) => {
    // The yaml library would turn such a key into text and say so in a process warning quoting it.
    const warnings: unknown[] = [];
    const onWarning = (warning: unknown) => warnings.push(warning);
    process.on('warning', onWarning);
    t.after(() => process.off('warning', onWarning));
    const env = { SECRET: 'Zq9SecretValue0123' };
    const issues = issuesOf(
      'a: 1\n? [${SECRET}]\n: x\nm:\n  { k: ${SECRET} }: y\nb: &list [1]\n*list : z\n',
      env,
    );
    assert.deepEqual(
      issues.map((issue) => `${issue.code} @ ${issue.path}`),
      ['config.parse_error @ line 2', 'config.parse_error @ line 5', 'config.parse_error @ line 7'],
    );
    for (const issue of issues) assert.match(issue.message, /^a key that is a list or a mapping/);
    assert.ok(!JSON.stringify(issues).includes(env.SECRET), 'a key is quoted');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
  });

  it('reports keys that become the same object key, such as 1 and "1"', () => {
    const issues = issuesOf('m:\n  1: a\n  "1": b\n  ~: c\n  "": d\n');
    assert.deepEqual(
      issues.map((issue) => issue.path),
      ['line 3', 'line 5'],
    );
  });
});

describe('a ${VAR} in a key', () => {
  /** Refused at `line`, naming the variable and never quoting its value. */
  const assertRefusedKey = (text: string, env: Env, line: number) => {
    const issues = issuesOf(text, env);
    assert.deepEqual(
      issues.map((issue) => `${issue.code} @ ${issue.path}`),
      [`config.parse_error @ line ${line}`],
    );
    const message = issues[0]?.message ?? '';
    assert.match(message, /VALUE is used in a key/);
    for (const value of Object.values(env)) assert.ok(!message.includes(value), 'the value is quoted');
  };

  it('is refused, plain, quoted or inside flow: keys are named in messages, and the value may be a secret', () => {
    assertRefusedKey('server:\n  ${VALUE}: 1\n', { VALUE: 's3cr3t-token' }, 2);
    assertRefusedKey('server:\n  "${VALUE}": 1\n', { VALUE: 's3cr3t-token' }, 2);
    assertRefusedKey("a: 1\n'x-${VALUE}' : 1\n", { VALUE: 's3cr3t-token' }, 2);
    assertRefusedKey('a: { ${VALUE}: 1 }\n', { VALUE: 's3cr3t-token' }, 1);
    assertRefusedKey('? ${VALUE}\n: 1\n', { VALUE: 's3cr3t-token' }, 1);
  });

  it('leaves values alone, also those followed by a colon inside the text', () => {
    assert.deepEqual(parse('a: ${VALUE}\nb: "${VALUE}: x"\nc: [${VALUE}]\n', { VALUE: 'v' }), {
      a: 'v',
      b: 'v: x',
      c: ['v'],
    });
  });
});
