// Test-only: the Chromium the tests that drive a real browser use, found where the screenshot
// tool finds it. `npm test` installs Debian's chromium first when it runs as root
// (scripts/ensure-setup.mjs); elsewhere those tests skip, and say so on the console.
import { findChromium } from '../../src/tools/ops/find-chromium.js';

/** The Chromium binary, or null after printing why the suite is skipped. */
export async function chromiumForTests(suite: string): Promise<string | null> {
  const { binary, tried } = await findChromium({ configuredPath: process.env.BUILDFLEET_CHROMIUM_PATH });
  if (!binary) {
    console.warn(
      `[${suite}] skipped: no Chromium at ${tried.join(' or ')}. npm test installs it with apt-get when run as root; ` +
        'otherwise: sudo apt-get install -y --no-install-recommends chromium',
    );
  }
  return binary;
}
