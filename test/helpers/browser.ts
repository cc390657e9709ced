import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's `chromium` package; `.ci/run` installs it when missing. */
export const CHROMIUM = process.env.JOBPROOF_CHROMIUM ?? '/usr/bin/chromium';

/** Headless Chromium with nothing that talks to the network on its own. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`no browser at ${CHROMIUM}: apt-get install -y --no-install-recommends chromium (or set JOBPROOF_CHROMIUM)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
