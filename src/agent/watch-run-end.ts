// While a model call streams, its run may end under it: cancelled through the API, the console or
// the CLI, which run in other processes than this model worker. Without a look at the run, the
// answer streams on to its end and is paid for though no one will read it (seen in a dev fleet: a
// build cancelled mid-call went on writing a page for 16 s and cost five times what it had). The
// watch reads the run's status (one field) every interval while the call is in flight and aborts
// the call once the run is terminal; what the API billed for the stopped stream is counted as for
// any stream broken after it started (record-failed-model-call.ts).
import type { Logger } from 'pino';
import { isTerminal, type RunStatus, type TerminalStatus } from '../domain/run-outcomes.js';

/** Why a call was stopped: the run it was made for ended while it streamed. */
export class RunEndedDuringCall extends Error {
  constructor(readonly status: TerminalStatus) {
    super(`The run ended (${status}) while the answer streamed: the call was stopped.`);
    this.name = 'RunEndedDuringCall';
  }
}

export interface RunEndWatch {
  /** Aborted (with a RunEndedDuringCall) once the run is seen terminal. */
  signal: AbortSignal;
  /** The run's terminal status if the watch stopped the call, else null. */
  endedAs(): TerminalStatus | null;
  stop(): void;
}

/** Starts watching `runId`; stop it when the call is over, whatever its outcome. */
export function watchRunEnd({
  statusOf,
  runId,
  intervalMs,
  logger,
}: {
  statusOf: (runId: string) => Promise<RunStatus | null>;
  runId: string;
  intervalMs: number;
  logger: Logger;
}): RunEndWatch {
  const controller = new AbortController();
  let ended: TerminalStatus | null = null;
  let reading = false;
  const look = async () => {
    if (reading || ended) return;
    reading = true;
    try {
      const status = await statusOf(runId);
      if (status && isTerminal(status) && !ended) {
        ended = status;
        controller.abort(new RunEndedDuringCall(status));
      }
    } catch (error) {
      // A failed read leaves the call running, as before the watch: the next look may succeed.
      logger.debug({ run_id: runId, err: error instanceof Error ? error.message : String(error) }, 'run status read failed during a model call');
    } finally {
      reading = false;
    }
  };
  const timer = setInterval(() => void look(), intervalMs);
  timer.unref();
  return {
    signal: controller.signal,
    endedAs: () => ended,
    stop: () => clearInterval(timer),
  };
}
