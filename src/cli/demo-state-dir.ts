// Where `ambit demo` keeps its generated keys and its audit files.
import { join, resolve } from 'node:path';

/**
 * AMBIT_DEMO_STATE_DIR as an absolute folder, else demo/var. The demo configs resolve their audit paths against
 * demo/, so a relative value passed on as typed would put the audit files under demo/ and the keys under the
 * working directory; it is read from the working directory, as the user meant it. Empty counts as unset, as the
 * configs' `${AMBIT_DEMO_STATE_DIR:-var}` does.
 */
export function demoStateDir(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  demoDir: string,
): string {
  const named = env.AMBIT_DEMO_STATE_DIR;
  return named ? resolve(cwd, named) : join(demoDir, 'var');
}
