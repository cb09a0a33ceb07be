// Launches Chromium headless for page tests; fails (never skips) when no browser can be found. Debian's package is
// used where it is installed (AMBIT_CHROMIUM_PATH names another); elsewhere the headless build that the npm package
// @sparticuz/chromium carries, so that `npm ci && npm test` needs nothing beyond Node and npm.
import assert from 'node:assert/strict';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { type Browser, chromium } from 'playwright-core';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: await chromiumPath(), args: CHROMIUM_ARGS });
}

async function chromiumPath(): Promise<string> {
  const named = process.env.AMBIT_CHROMIUM_PATH;
  if (named !== undefined) {
    if (!existsSync(named)) assert.fail(`AMBIT_CHROMIUM_PATH names ${named}, which does not exist.`);
    return named;
  }
  return existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : packagedChromium();
}

/**
 * The packaged browser, inflated once per version into the temporary directory. Test files run in parallel
 * processes: each inflates into a file of its own and renames it into place, so none ever starts a partial binary.
 */
async function packagedChromium(): Promise<string> {
  // The package exports only its entry module (build/<format>/index.*), two levels below its root.
  const root = join(dirname(createRequire(import.meta.url).resolve('@sparticuz/chromium')), '..', '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const target = join(tmpdir(), `ambit-chromium-${version}`, 'chromium');
  if (existsSync(target)) return target;
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}.partial`;
  await pipeline(
    createReadStream(join(root, 'bin', 'chromium.br')),
    createBrotliDecompress(),
    createWriteStream(partial, { mode: 0o755 }),
  );
  renameSync(partial, target);
  return target;
}
