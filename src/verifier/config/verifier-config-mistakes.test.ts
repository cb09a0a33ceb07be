// Mistakes an operator makes in a first verifier config: each reported with its path and what to write instead,
// never as a crash.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, ENV, issuesAt, issuesOf } from './verifier-config-test-support.ts';

describe('verifier config mistakes', () => {
  it('reports a list of many wrong entries inside a claim as a config problem, not a stack overflow', () => {
    // A pasted data column: every entry is a number where a claim id belongs.
    const wrong = Array.from({ length: 150_000 }, () => '1').join(',');
    const text = BASE.replace('subject_type: person', `subject_type: person\n      depends_on: [${wrong}]`);
    const issues = issuesOf(text);
    assert.ok(issues.length >= 1);
    assert.ok(issues.every((issue) => issue.code === 'config.validation_error'));
    assert.ok(
      issues.some((issue) => issue.path.startsWith('evidence.claims.0.depends_on')),
      issues.map((issue) => issue.path).join('\n'),
    );
  });

  it('says which names a connection or binding id may take, not only that the key is invalid', () => {
    const text = BASE.replace('    relay: {', '    Relay-A: {').replace(
      'source_bindings:\n        p:',
      'source_bindings:\n        Main:',
    );
    const messages = new Map(issuesOf(text).map((issue) => [issue.path, issue.message]));
    assert.match(
      messages.get('evidence.source_connections.Relay-A') ?? '',
      /^key must match \^\[a-z\]\[a-z0-9_\]\*\$/,
    );
    assert.match(
      messages.get('evidence.claims.0.source_bindings.Main') ?? '',
      /^key must match \^\[a-z\]\[a-z0-9_\]\*\$/,
    );
  });

  it('suggests the configured connection a binding most likely means', () => {
    const text = BASE.replace('connection: relay\n', 'connection: rellay\n');
    const { warnings } = loadVerifierConfigText(text, ENV, '/tmp');
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0] as string,
      /connection rellay, which is not configured \(did you mean `relay`\?\)/,
    );
  });

  it('refuses a subject type or version longer than a request may name', () => {
    // A request's target.type is at most 128 characters and a claim reference's version at most 64: a claim
    // with a longer one could never be evaluated (or pinned to its version).
    const text = BASE.replace('subject_type: person', `subject_type: ${'p'.repeat(129)}`).replace(
      'version: "1"',
      `version: "${'1'.repeat(65)}"`,
    );
    const messages = new Map(issuesOf(text).map((issue) => [issue.path, issue.message]));
    assert.equal(messages.get('evidence.claims.0.subject_type'), 'must be at most 128 characters');
    assert.equal(messages.get('evidence.claims.0.version'), 'must be at most 64 characters');
    const longest = BASE.replace('subject_type: person', `subject_type: ${'p'.repeat(128)}`).replace(
      'version: "1"',
      `version: "${'1'.repeat(64)}"`,
    );
    assert.doesNotThrow(() => loadVerifierConfigText(longest, ENV, '/tmp'));
  });

  it('refuses a scope no OIDC token could carry: a space, a double quote or a backslash in it', () => {
    // An OIDC scope claim is one space-separated string: `civil evidence` would be two scopes there, so a claim
    // requiring it could never be evaluated by a token, and a key holding it would grant nothing a token could.
    const text = BASE.replace('scopes: [civil:evidence]', 'scopes: ["civil evidence", \'civil"x\']')
      .replace('required_scope: civil:evidence', 'required_scope: "civil\\\\x"')
      .replace(
        '      value: { type: boolean }',
        '      required_scopes: ["a b"]\n      value: { type: boolean }',
      );
    const paths = issuesOf(text).map((issue) => issue.path);
    for (const path of [
      'auth.api_keys.0.scopes.0',
      'auth.api_keys.0.scopes.1',
      'evidence.claims.0.source_bindings.p.required_scope',
      'evidence.claims.0.required_scopes.0',
    ]) {
      assert.ok(paths.includes(path), `${path} in ${paths.join(', ')}`);
    }
    assert.match(issuesAt(text, 'auth.api_keys.0.scopes.0')[0]?.message ?? '', /scope token.*no space/);
    // Scope names as they are usually written (a URI or `dataset:level`) load.
    const uri = BASE.replace(
      'scopes: [civil:evidence]',
      'scopes: [civil:evidence, "https://scopes.example.org/read"]',
    );
    assert.doesNotThrow(() => loadVerifierConfigText(uri, ENV, '/tmp'));
  });
});
