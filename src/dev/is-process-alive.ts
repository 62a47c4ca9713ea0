// Whether a process id names a live process, for the dev fleet's left-overs: the home's lock
// (dev-home-lock.ts) and a kept PostgreSQL cluster's server (private-postgres.ts).

/** Whether `pid` is a live process (signal 0 checks without sending anything). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
