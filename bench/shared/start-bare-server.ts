// The bare node:http baseline: writes the routes it replays and starts it pinned to a core.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BareRoute } from '../relay-read/bare-server.ts';
import type { BenchProcess } from '../relay-read/start-bench-process.ts';
import type { BenchSession } from './bench-session.ts';
import { freePort } from './free-port.ts';

export async function startBareServer(
  session: BenchSession,
  routes: readonly BareRoute[],
  core: number,
): Promise<BenchProcess<{ url: string }>> {
  const routesPath = join(session.work, 'bare-routes.json');
  writeFileSync(routesPath, JSON.stringify(routes));
  return session.start<{ url: string }>({
    entry: 'bench/relay-read/bare-server.ts',
    args: [routesPath, `127.0.0.1:${await freePort()}`],
    core,
  });
}
