// The environment of an `ambit demo` a test starts (every listener on a free port, no log lines, its own state
// folder), and the demo started in a process of its own.
import { spawn } from 'node:child_process';
import { ROOT } from './run-cli.ts';

export function demoEnv(state: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    AMBIT_LOG_LEVEL: 'silent',
    AMBIT_RELAY_BIND: '127.0.0.1:0',
    AMBIT_VERIFIER_BIND: '127.0.0.1:0',
    AMBIT_VERIFIER_ADMIN_BIND: '127.0.0.1:0',
    AMBIT_DEMO_STATE_DIR: state,
  };
}

/** `ambit demo` with the state folder `state` and `env` over `demoEnv`; `shown` resolves once it prints `until` or exits. */
export function startDemo(state: string, until: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ['bin/ambit.js', 'demo'], {
    cwd: ROOT,
    env: { ...demoEnv(state), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const shown = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk) => {
      output.stdout += chunk;
      if (output.stdout.includes(until)) resolve();
    });
    child.stderr.on('data', (chunk) => {
      output.stderr += chunk;
    });
    void exited.then(() => resolve());
  });
  return { child, output, exited, shown };
}
