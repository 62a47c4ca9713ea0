// A queue worker and the sweep that enqueues the jobs its fast path lost (webhook deliveries, run
// archives), started and stopped as one: the sweep stops first, so it enqueues nothing more once the
// worker is closing.

export interface RunningWorkerWithSweep<Worker, Sweeper> {
  worker: Worker;
  sweeper: Sweeper;
  /** Stops the sweep and the worker (force: abandons jobs in progress; they are retried). */
  close(force?: boolean): Promise<void>;
}

/** Starts `sweeper` beside the already running `worker`. */
export function runWorkerWithSweep<Worker extends { close(force?: boolean): Promise<void> }, Sweeper extends { start(): void; stop(): Promise<void> }>({
  worker,
  sweeper,
}: {
  worker: Worker;
  sweeper: Sweeper;
}): RunningWorkerWithSweep<Worker, Sweeper> {
  sweeper.start();
  return {
    worker,
    sweeper,
    async close(force = false) {
      await sweeper.stop();
      await worker.close(force);
    },
  };
}
