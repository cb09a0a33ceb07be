// `ambit metadata serve --dir DIR [--bind host:port]`: serves a static publication, unauthenticated, until a signal.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../../platform/clock.ts';
import { isBindAddress } from '../../platform/config/bind-address.ts';
import { createLogger } from '../../platform/log.ts';
import { systemRandom } from '../../platform/random.ts';
import { createStaticMetadataApp } from '../../publisher/serve-static-metadata.ts';
import { splitBind } from '../../relay/start-relay.ts';
import type { Command } from '../cli-io.ts';
import { listenProblem } from '../listen-error.ts';
import { parseFlags, reportFlagError } from '../parse-flags.ts';
import { readLogLevel } from '../read-log-level.ts';

export const DEFAULT_METADATA_BIND = '127.0.0.1:4380';

export const metadataServe: Command = async (args, io) => {
  let flags: { dir?: string; bind?: string };
  try {
    flags = parseFlags(args, { dir: { type: 'string' }, bind: { type: 'string' } });
  } catch (error) {
    return reportFlagError(io, error);
  }
  if (!flags.dir) {
    return reportFlagError(io, '--dir is required');
  }
  const bind = flags.bind ?? DEFAULT_METADATA_BIND;
  if (!isBindAddress(bind)) {
    io.err('--bind must be host:port with a port from 0 to 65535');
    return 2;
  }
  const level = readLogLevel(io);
  if (level === 2) return 2;
  if (!existsSync(flags.dir) || !statSync(flags.dir).isDirectory()) {
    io.err(`${flags.dir} is not a directory`);
    return 1;
  }
  if (!existsSync(join(flags.dir, 'metadata', 'index.json'))) {
    io.err(`${flags.dir} has no metadata/index.json: run \`ambit metadata publish\` first`);
    return 1;
  }
  const app = createStaticMetadataApp(flags.dir, {
    logger: createLogger({ name: 'ambit-metadata', level }),
    clock: systemClock,
    random: systemRandom,
  });
  const { host, port } = splitBind(bind);
  try {
    await app.listen({ host, port });
  } catch (error) {
    const problem = listenProblem(error);
    io.err(
      problem === undefined
        ? `cannot listen on ${bind}: ${error instanceof Error ? error.message : String(error)}`
        : `${problem}; stop the other process, or choose another address with --bind`,
    );
    await app.close();
    return 1;
  }
  const address = app.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  io.out(
    `ambit metadata serving ${flags.dir} on http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // As the relay and the verifier: Node's default for SIGHUP (often sent to mean "reload") would end the process
    // at once, cutting responses. Files are read with every request, so a new publication needs no reload.
    process.on('SIGHUP', () =>
      io.err('SIGHUP ignored: files are read with every request; stop with SIGTERM'),
    );
  });
  await app.close();
  return 0;
};
