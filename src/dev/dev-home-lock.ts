// One `buildfleet dev` at a time per home (.buildfleet/): two would start two redis-servers
// appending to one AOF, and two PostgreSQL starts on one cluster. The lock is a file naming the
// process that holds it; a file whose process is gone (a `dev` that was killed) is taken over.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class DevHomeBusy extends Error {
  readonly code = 'dev_home_busy';
  constructor(message: string) {
    super(message);
    this.name = 'DevHomeBusy';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the home for this process (returning how to release it); throws DevHomeBusy while
 * another live process holds it. */
export function lockDevHome({ homeDir }: { homeDir: string }): () => void {
  const file = join(homeDir, 'dev.pid');
  let holder: number | null = null;
  try {
    holder = Number(readFileSync(file, 'utf8').trim());
  } catch {
    holder = null;
  }
  if (holder !== null && Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
    throw new DevHomeBusy(`another \`buildfleet dev\` (pid ${holder}) runs on ${homeDir}: stop it first (Ctrl-C there, or kill ${holder})`);
  }
  mkdirSync(homeDir, { recursive: true });
  writeFileSync(file, `${process.pid}\n`);
  return () => {
    // Only our own lock: a later process may hold it by now.
    try {
      if (Number(readFileSync(file, 'utf8').trim()) === process.pid) rmSync(file, { force: true });
    } catch {
      // gone already
    }
  };
}
