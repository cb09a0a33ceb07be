// Launches Debian's Chromium headless for page tests; fails (never skips) when it is not installed.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM_PATH = process.env.AMBIT_CHROMIUM_PATH ?? '/usr/bin/chromium';
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
  if (!existsSync(CHROMIUM_PATH)) {
    assert.fail(
      `Chromium is required for this test but ${CHROMIUM_PATH} does not exist: run \`apt-get install chromium\` ` +
        '(or scripts/install-system-deps.sh).',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
