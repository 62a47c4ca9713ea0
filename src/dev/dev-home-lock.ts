// One `buildfleet dev` at a time per home (.buildfleet/): two would start two redis-servers
// appending to one AOF, and two PostgreSQL starts on one cluster. The lock is a file naming the
// process that holds it; a file whose process is gone (a `dev` that was killed) is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive } from './is-process-alive.js';

export class DevHomeBusy extends Error {
  readonly code = 'dev_home_busy';
  constructor(message: string) {
    super(message);
    this.name = 'DevHomeBusy';
  }
}

/** The pid the lock file names; null when there is none, or it holds no pid (damaged). */
function holderOf(file: string): number | null {
  let holder: number;
  try {
    holder = Number(readFileSync(file, 'utf8').trim());
  } catch {
    return null;
  }
  return Number.isInteger(holder) && holder > 0 ? holder : null;
}

function busy(homeDir: string, holder: number | null): DevHomeBusy {
  const who = holder === null ? '' : ` (pid ${holder})`;
  const how = holder === null ? 'Ctrl-C there' : `Ctrl-C there, or kill ${holder}`;
  return new DevHomeBusy(`another \`buildfleet dev\`${who} runs on ${homeDir}: stop it first (${how})`);
}

/** The live process holding `homeDir` (a running `dev`), or null. */
export function devHomeHolder({ homeDir }: { homeDir: string }): number | null {
  const holder = holderOf(join(homeDir, 'dev.pid'));
  return holder !== null && holder !== process.pid && isProcessAlive(holder) ? holder : null;
}

/** Takes the home for this process (returning how to release it); throws DevHomeBusy while
 * another live process holds it. */
export function lockDevHome({ homeDir }: { homeDir: string }): () => void {
  const file = join(homeDir, 'dev.pid');
  mkdirSync(homeDir, { recursive: true });
  const holder = holderOf(file);
  if (holder !== null && holder !== process.pid && isProcessAlive(holder)) throw busy(homeDir, holder);
  // A dead holder's (or a damaged) lock goes, and the lock is taken by creating the file
  // exclusively: of two starts at once, the second finds the first's file and is refused, where a
  // plain write would let both believe they hold the home.
  if (holder !== process.pid) rmSync(file, { force: true });
  try {
    writeFileSync(file, `${process.pid}\n`, { flag: holder === process.pid ? 'w' : 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw busy(homeDir, holderOf(file));
    throw error;
  }
  return () => {
    // Only our own lock: a later process may hold it by now.
    if (holderOf(file) === process.pid) rmSync(file, { force: true });
  };
}
