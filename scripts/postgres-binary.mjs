// Where PostgreSQL's server programs live. Debian's `postgresql` package puts initdb, postgres and
// pg_ctl in /usr/lib/postgresql/<major>/bin, outside PATH (only the client wrappers are on it), so
// the newest major there wins; a PATH entry (another distribution, a symlink) is the fallback.
import { accessSync, constants, readdirSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

const PROGRAMS = ['initdb', 'postgres'];

function hasPrograms(directory) {
  try {
    for (const program of PROGRAMS) accessSync(join(directory, program), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Returns the directory holding runnable initdb and postgres, or null. */
export function findPostgresBinDir() {
  const debianRoot = '/usr/lib/postgresql';
  let majors = [];
  try {
    majors = readdirSync(debianRoot)
      .filter((name) => /^\d+$/.test(name))
      .sort((left, right) => Number(right) - Number(left));
  } catch {
    // no Debian layout here
  }
  for (const major of majors) {
    const directory = join(debianRoot, major, 'bin');
    if (hasPrograms(directory)) return directory;
  }
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (!directory) continue;
    try {
      const initdb = realpathSync(join(directory, 'initdb'));
      if (hasPrograms(dirname(initdb))) return dirname(initdb);
    } catch {
      // not here; keep looking
    }
  }
  return null;
}
