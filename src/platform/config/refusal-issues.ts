// For tests: the issues a config, env file or manifest loader refused its input with.
import assert from 'node:assert/strict';
import { ConfigError, type ConfigIssue } from './config-error.ts';

/** The issues `load` throws in a ConfigError; fails the test when it loads, rethrows any other error. */
export function refusalIssues(load: () => unknown): readonly ConfigIssue[] {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  assert.fail('expected the input to be refused');
}
