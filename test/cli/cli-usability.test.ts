// What a new user meets when a command line is wrong: a misspelt flag or command named with what was meant, a flag
// given twice refused, and a listen address already taken said in one line with how to move the listener.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { ROOT, runCli } from '../helpers/run-cli.ts';

const MINIMAL = join(ROOT, 'test/config/valid/minimal.yaml');
const READER_ENV = {
  READER_HASH: fingerprintOf('reader-key'),
  AUDIT_SECRET: 'audit-secret-for-cli-tests-0123456789abc',
};

/** Runs `node bin/ambit.js ...` until it exits, or until its output shows `until` (then it is still running). */
function spawnCli(args: string[], env: Record<string, string>, until?: string) {
  const child = spawn(process.execPath, ['bin/ambit.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, AMBIT_LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const shown = new Promise<void>((resolve) => {
    const check = () => {
      if (until !== undefined && output.stdout.includes(until)) resolve();
    };
    child.stdout.on('data', (chunk) => {
      output.stdout += chunk;
      check();
    });
    child.stderr.on('data', (chunk) => {
      output.stderr += chunk;
    });
    void exited.then(() => resolve());
  });
  return { child, output, exited, shown };
}

function hold(): Promise<{ server: Server; bind: string }> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, bind: `127.0.0.1:${port}` });
    });
  });
}

let dir: string;
let held: { server: Server; bind: string };
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ambit-cli-usability-'));
  held = await hold();
});
after(async () => {
  await new Promise((resolve) => held.server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('a misspelt flag or command', () => {
  it('names the flag that was most likely meant, in both --flag value and --flag=value forms', async () => {
    const cases: [string[], RegExp][] = [
      [['keys', 'generate', '--idd', 'reader'], /^unknown flag --idd: did you mean --id\?$/],
      [['keys', 'generate', '--idd=reader'], /^unknown flag --idd: did you mean --id\?$/],
      [['config', 'check', '--confg', 'relay.yaml'], /did you mean --config\?/],
      [['audit', 'verify', '--secret', 'S', '--file', 'f'], /did you mean --secret-env\?/],
      [['relay', 'serve', '--config', MINIMAL, '--worker', '2'], /did you mean --workers\?/],
      [['metadata', 'publish', '--base_url', 'http://x'], /did you mean --base-url\?/],
    ];
    for (const [argv, pattern] of cases) {
      const result = await runCli(argv, READER_ENV);
      assert.equal(result.code, 2, argv.join(' '));
      assert.deepEqual(result.out, [], argv.join(' '));
      assert.match(result.err[0] ?? '', pattern, argv.join(' '));
      assert.match(result.err[1] ?? '', new RegExp(`^usage: ambit ${argv[0]} ${argv[1]} --`), argv.join(' '));
    }
  });

  it('lists the accepted flags when none is close', async () => {
    const result = await runCli(['relay', 'serve', '--port', '80'], READER_ENV);
    assert.equal(result.code, 2);
    assert.deepEqual(result.err, [
      'unknown flag --port (accepted: --bind, --workers, --config, --env-file)',
      'usage: ambit relay serve --config F (or AMBIT_RELAY_CONFIG) [--env-file F] [--bind host:port] [--workers N|auto]',
    ]);
  });

  it('says in its own words what is wrong with a flag, then the usage of the command', async () => {
    const keys =
      'usage: ambit keys generate --id ID [--for relay|verifier] (prints the key once, its fingerprint and commitment)';
    const cases: [string[], string[]][] = [
      [
        ['keys', 'generate', '--id'],
        ['--id needs a value', keys],
      ],
      [
        ['keys', 'generate', '--id', '--for', 'relay'],
        ['--id needs a value (write --id=VALUE for a value starting with a dash)', keys],
      ],
      [
        ['keys', 'generate', '--ID', 'reader'],
        ['unknown flag --ID: did you mean --id?', keys],
      ],
      [
        ['keys', 'generate', '--id', 'reader', 'extra'],
        ['unexpected argument extra: this command takes flags only (accepted: --id, --for)', keys],
      ],
      [
        ['audit', 'verify', '--rotated=yes'],
        [
          '--rotated takes no value',
          'usage: ambit audit verify --file F --secret-env VAR [--rotated (F.N ... F.1, then F, as one chain)] [--genesis | --anchor HASH]',
        ],
      ],
      [
        ['metadata', 'publish', '--out', 'site'],
        [
          '--manifest and --out are required',
          'usage: ambit metadata publish --manifest F --out DIR [--base-url URL]',
        ],
      ],
      [
        ['metadata', 'serve', '--dir', 'site', '--bind', '127.0.0.1:65536'],
        ['--bind must be host:port with a port from 0 to 65535'],
      ],
      [
        ['metadata', 'validate', 'manifest.yaml'],
        [
          'unexpected argument manifest.yaml: this command takes flags only (accepted: --manifest)',
          'usage: ambit metadata validate --manifest F',
        ],
      ],
    ];
    for (const [argv, err] of cases) {
      const result = await runCli(argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.deepEqual(result.out, [], argv.join(' '));
      assert.deepEqual(result.err, err, argv.join(' '));
    }
  });

  it('refuses a flag given twice instead of keeping the last one', async () => {
    for (const argv of [
      ['keys', 'generate', '--id', 'first', '--id', 'second'],
      ['keys', 'generate', '--id=first', '--id', 'second'],
    ]) {
      const result = await runCli(argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.deepEqual(result.out, [], 'no key printed');
      assert.deepEqual(result.err, [
        '--id is given more than once',
        'usage: ambit keys generate --id ID [--for relay|verifier] (prints the key once, its fingerprint and commitment)',
      ]);
    }
  });

  it('answers a group asked for help with its commands', async () => {
    for (const [group, commands] of [
      ['relay', ['ambit relay serve']],
      ['metadata', ['ambit metadata publish', 'ambit metadata validate', 'ambit metadata serve']],
    ] as const) {
      for (const flag of ['--help', '-h']) {
        const result = await runCli([group, flag]);
        assert.equal(result.code, 0, `${group} ${flag}`);
        assert.deepEqual(
          result.out
            .join('\n')
            .split('\n')
            .map((line) => /ambit [a-z]+ [a-z]+/.exec(line)?.[0]),
          commands,
        );
      }
    }
    // A word that is no group is still a mistake.
    assert.equal((await runCli(['relays', '--help'])).code, 2);
  });

  it('suggests the command meant by a first word alone or a misspelt one', async () => {
    const cases: [string[], string][] = [
      [['relay'], 'did you mean: ambit relay serve?'],
      [['relay', 'serv'], 'did you mean: ambit relay serve?'],
      [['metadata', 'pub'], 'did you mean: ambit metadata publish?'],
      [['verifer', 'serve'], 'did you mean: ambit verifier serve?'],
      [['config', 'lint'], 'did you mean: ambit config check?'],
    ];
    for (const [argv, hint] of cases) {
      const result = await runCli(argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.equal(result.err[0], `unknown command: ${argv.join(' ')}`);
      assert.equal(result.err[1], hint, argv.join(' '));
    }
    const none = await runCli(['frobnicate']);
    assert.equal(none.err[1], '', 'no suggestion: the usage follows');
  });

  it('audit verify names the --secret-env variable that is not set', async () => {
    const result = await runCli([
      'audit',
      'verify',
      '--file',
      join(dir, 'a.jsonl'),
      '--secret-env',
      'NOT_SET_HERE',
    ]);
    assert.equal(result.code, 2);
    assert.deepEqual(result.err, [
      'environment variable NOT_SET_HERE (named by --secret-env) is not set or empty',
    ]);
  });
});

describe('the demo listen addresses', () => {
  it('refuses a malformed bind variable by its name, writing nothing', async () => {
    for (const [name, value] of [
      ['AMBIT_RELAY_BIND', '4242'],
      ['AMBIT_VERIFIER_BIND', 'nope'],
      ['AMBIT_VERIFIER_ADMIN_BIND', '127.0.0.1:70000'],
    ] as const) {
      const state = join(dir, `state-${name}`);
      const result = await runCli(['demo'], { [name]: value, AMBIT_DEMO_STATE_DIR: state });
      assert.equal(result.code, 2, name);
      assert.deepEqual(result.err, [
        `${name} must be host:port with a port from 0 to 65535 (0: any free port), not ${value}`,
      ]);
      assert.equal(existsSync(state), false, 'no keys generated');
    }
  });

  it('says which address is taken and which variable moves it, without a stack trace', async () => {
    for (const name of ['AMBIT_RELAY_BIND', 'AMBIT_VERIFIER_BIND'] as const) {
      const env: Record<string, string> = {
        AMBIT_RELAY_BIND: '127.0.0.1:0',
        AMBIT_VERIFIER_BIND: '127.0.0.1:0',
        AMBIT_VERIFIER_ADMIN_BIND: '127.0.0.1:0',
        AMBIT_DEMO_STATE_DIR: join(dir, 'state-in-use'),
        [name]: held.bind,
      };
      const demo = spawnCli(['demo'], env);
      assert.equal(await demo.exited, 1, name);
      assert.equal(demo.output.stdout, '', name);
      assert.equal(
        demo.output.stderr,
        `cannot listen on ${held.bind}: the address is already in use (another process listens there); ` +
          `is the demo already running? Stop it, or move the demo with ${name} (host:port; port 0 picks a free one)\n`,
      );
    }
  });

  it('relay serve refuses a --bind that is the admin listener address, before listening on either', async () => {
    const config = join(dir, 'admin-clash.yaml');
    writeFileSync(
      config,
      readFileSync(MINIMAL, 'utf8').replace(
        '  bind: 127.0.0.1:4242',
        '  bind: 127.0.0.1:4242\n  admin_bind: 127.0.0.1:18398',
      ),
    );
    for (const bind of ['127.0.0.1:18398', '0.0.0.0:18398']) {
      const result = await runCli(['relay', 'serve', '--config', config, '--bind', bind], READER_ENV);
      assert.equal(result.code, 2, result.err.join('\n'));
      assert.deepEqual(result.err, [
        `--bind ${bind} is the admin listener's address (server.admin_bind 127.0.0.1:18398): admin routes never share the public listener; choose another`,
      ]);
    }
  });

  it('relay serve says the address is taken and names --bind', async () => {
    const relay = spawnCli(['relay', 'serve', '--config', MINIMAL, '--bind', held.bind], READER_ENV);
    assert.equal(await relay.exited, 1);
    assert.match(
      relay.output.stderr,
      new RegExp(`^cannot listen on ${held.bind}: the address is already in use`),
    );
    assert.match(relay.output.stderr, /--bind/);
    assert.doesNotMatch(relay.output.stderr, /\n\s+at /, 'no stack trace');
  });

  it('metadata serve says the address is taken and names --bind', async () => {
    const site = join(dir, 'site');
    const manifest = join(ROOT, 'demo/relay.metadata.yaml');
    assert.equal((await runCli(['metadata', 'publish', '--manifest', manifest, '--out', site])).code, 0);
    const serve = await runCli(['metadata', 'serve', '--dir', site, '--bind', held.bind], {
      AMBIT_LOG_LEVEL: 'silent',
    });
    assert.equal(serve.code, 1);
    assert.deepEqual(serve.err, [
      `cannot listen on ${held.bind}: the address is already in use (another process listens there); ` +
        'stop the other process, or choose another address with --bind',
    ]);
  });
});

describe('the demo on every interface', () => {
  let demo: ReturnType<typeof spawnCli> | undefined;
  after(async () => {
    if (demo && demo.child.exitCode === null) {
      demo.child.kill('SIGTERM');
      await demo.exited;
    }
  });

  it('starts with AMBIT_RELAY_BIND=0.0.0.0:0 (the verifier reads the relay on loopback) and stops on SIGINT', async () => {
    const state = join(dir, 'state-any');
    demo = spawnCli(
      ['demo'],
      {
        AMBIT_RELAY_BIND: '0.0.0.0:0',
        AMBIT_VERIFIER_BIND: '127.0.0.1:0',
        AMBIT_VERIFIER_ADMIN_BIND: '127.0.0.1:0',
        AMBIT_DEMO_STATE_DIR: state,
      },
      'Press Ctrl+C',
    );
    await demo.shown;
    assert.match(demo.output.stdout, /Press Ctrl\+C/, demo.output.stderr);
    const verifierUrl = /Ambit Verifier demo listening on (http:\/\/\S+)/.exec(demo.output.stdout)?.[1];
    const ready = await fetch(`${verifierUrl}/ready`);
    assert.equal(ready.status, 200);
    (demo.child as ChildProcess).kill('SIGINT');
    assert.equal(await demo.exited, 0);
    assert.deepEqual(readdirSync(state).sort(), ['audit.jsonl', 'demo-keys.env', 'verifier-audit.jsonl']);
  });

  it('stops quietly when the reader of its output goes away (`ambit keys generate | head -1`)', async () => {
    const child = spawn(process.execPath, ['bin/ambit.js', 'keys', 'generate', '--id', 'piped'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the CLI has started: its first line meets a pipe nobody reads.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(stderr, '', 'no stack trace');
    assert.equal(code, 141, 'the status of a tool stopped by SIGPIPE');
  });

  it('says in one line why its output could not be written (a full disk), without a stack trace', async () => {
    const child = spawn(process.execPath, ['bin/ambit.js', 'keys', 'generate', '--id', 'full'], {
      cwd: ROOT,
      stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.equal(stderr, 'ambit: cannot write the output: ENOSPC (no space left on device)\n');
  });
});
