// Where the screenshot tool finds Chromium: the configured path, else the usual Debian/Ubuntu
// locations. Checked per call (cheap) so installing Chromium needs no restart.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';

export const DEFAULT_CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'] as const;

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The Chromium binary to run and the paths that were tried; binary is null when none exists.
 * `defaultPaths` are where to look when nothing is configured (tests name their own). */
export async function findChromium({
  configuredPath,
  defaultPaths = DEFAULT_CHROMIUM_PATHS,
}: {
  configuredPath: string | undefined;
  defaultPaths?: readonly string[];
}): Promise<{ binary: string | null; tried: string[] }> {
  // A configured path is authoritative: silently using another browser would hide a bad config.
  const candidates = configuredPath ? [configuredPath] : [...defaultPaths];
  for (const candidate of candidates) {
    if (await isExecutable(candidate)) return { binary: candidate, tried: candidates };
  }
  return { binary: null, tried: candidates };
}
