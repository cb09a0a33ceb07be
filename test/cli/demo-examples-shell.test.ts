// The demo banner's requests are copied into a terminal one line at a time. zsh, the default shell on macOS, reads
// `#` in an interactive line as text (no INTERACTIVE_COMMENTS) and stops on a bracket pattern that matches no file
// (NOMATCH): an interactive bash set up the same way stands in for it here, with a `curl` that prints what it got.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { postgresExamples, relayExamples } from '../../src/cli/demo-relay-examples.ts';
import { verifierExamples } from '../../src/cli/demo-verifier-examples.ts';

/** The arguments curl receives when `line` is pasted into such a shell, or the shell's error. */
function curlArguments(line: string): { args: string[]; stderr: string } {
  const script = [
    'shopt -u interactive_comments',
    'shopt -s failglob',
    'curl() { printf "%s\\0" "$@"; }',
    line,
  ].join('\n');
  const run = spawnSync('bash', ['--norc', '--noprofile', '-i', '-c', script], { encoding: 'utf8' });
  return { args: run.stdout.split('\0').slice(0, -1), stderr: run.stderr };
}

const KEYS = {
  catalog_viewer: 'viewer-key',
  caseworker: 'caseworker-key',
  analyst: 'analyst-key',
  health_planner: 'planner-key',
  operator: 'operator-key',
};

describe('demo banner requests pasted into a shell', () => {
  for (const [name, url, adminUrl] of [
    ['loopback', 'http://127.0.0.1:4242', 'http://127.0.0.1:4344'],
    ['IPv6', 'http://[::1]:4242', 'http://[::1]:4344'],
  ] as const) {
    it(`give curl one URL and nothing after it (${name})`, () => {
      const lines = [
        ...relayExamples(url, (id) => KEYS[id as keyof typeof KEYS] ?? ''),
        ...postgresExamples(url, KEYS.caseworker),
        ...verifierExamples(url, adminUrl, {
          caseworker: KEYS.caseworker,
          healthPlanner: KEYS.health_planner,
          operator: KEYS.operator,
        }),
      ].filter((line) => line.trimStart().startsWith('curl '));
      assert.ok(lines.length >= 20, lines.join('\n'));
      for (const line of lines) {
        const { args, stderr } = curlArguments(line.replace('EVALUATION_ID', '01J0000000000000000000000'));
        assert.ok(args.length > 0, `${line}\n${stderr}`);
        const last = args.at(-1) as string;
        assert.ok(
          last.startsWith(`${url}/`) || last.startsWith(`${adminUrl}/`),
          `${line}\n${args.join(' | ')}`,
        );
        assert.equal(args.filter((arg) => arg.startsWith('http')).length, 1, `${line}\n${args.join(' | ')}`);
      }
    });
  }
});
