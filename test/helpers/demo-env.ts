// The environment of an `ambit demo` a test starts: every listener on a free port, no log lines, its own state folder.
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
