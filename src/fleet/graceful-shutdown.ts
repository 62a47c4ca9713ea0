// SIGTERM/SIGINT: stop taking jobs, let running ones finish within the deadline, then exit.
// A job still running at the deadline is left to BullMQ's stalled-job recovery: its lock
// expires and another worker takes it over (see README, "Locks and stalled jobs"). For a model
// turn whose answer was not stored yet that means a second, paid call, so the deadline
// (BUILDFLEET_SHUTDOWN_TIMEOUT_MS) sits above the slowest expected call (docs/deploy.md, "Stopping").
import type { Logger } from 'pino';

export interface Closable {
  name: string;
  close(force: boolean): Promise<void>;
}

export function installGracefulShutdown(input: { logger: Logger; deadlineMs: number; closables: Closable[]; after?: () => Promise<void> }): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    input.logger.info({ event: 'shutdown-start', signal, deadline_ms: input.deadlineMs }, 'shutting down');
    const deadline = new Promise<'deadline'>((resolve) => setTimeout(() => resolve('deadline'), input.deadlineMs).unref());
    const graceful = Promise.all(input.closables.map((closable) => closable.close(false))).then(() => 'closed' as const);
    const outcome = await Promise.race([graceful, deadline]);
    // Past the deadline nothing may hold the exit: closing against a Redis that is gone can
    // wait forever, so the forced close and the clean-up each get a few seconds at most.
    const bounded = (work: Promise<unknown>) => Promise.race([work.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    if (outcome === 'deadline') {
      input.logger.warn({ event: 'shutdown-deadline' }, 'deadline reached; forcing close');
      await bounded(Promise.allSettled(input.closables.map((closable) => closable.close(true))));
    }
    await bounded(input.after?.() ?? Promise.resolve());
    input.logger.info({ event: 'shutdown-end', outcome }, 'stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}
