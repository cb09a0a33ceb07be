import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from './config-error.ts';
import { parseConfigText } from './load-config-file.ts';

function issuesOf(text: string): readonly { path: string; message: string }[] {
  try {
    parseConfigText(text, {});
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

describe('duplicate mapping keys', () => {
  it('are reported with their line, in block and flow mappings', () => {
    const issues = issuesOf('a: 1\nb: { x: 1, x: 2 }\na: 3\n');
    assert.deepEqual(
      issues.map((issue) => issue.path),
      ['line 2', 'line 3'],
    );
    assert.match(issues[1]?.message ?? '', /^Map keys must be unique at line 3, column 1$/);
  });

  it('are found far down a large mapping, once, at the repeated key', () => {
    // One pass over the keys (the parser's own check compares each key with every earlier one); the cost is shown
    // by measurement, not asserted here.
    const keys = Array.from({ length: 5_000 }, (_, i) => `  k${i}: v`);
    const issues = issuesOf(`m:\n${keys.join('\n')}\n  k7: again\n`);
    assert.deepEqual(
      issues.map((issue) => issue.path),
      [`line ${keys.length + 2}`],
    );
  });
});
