// Shared by config tests of both services: the issues a load reports at one path (none when it loads).
import assert from 'node:assert/strict';
import { ConfigError } from './config-error.ts';

export function issuesAtPath(load: () => unknown, path: string): { code: string; message: string }[] {
  try {
    load();
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.issues
      .filter((issue) => issue.path === path)
      .map(({ code, message }) => ({ code, message }));
  }
  return [];
}
