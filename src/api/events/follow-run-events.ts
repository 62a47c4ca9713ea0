// Replays a run's trace events after a given id, then follows new ones live until the run is
// terminal and every event has been handed over.
//
// Following uses one duplicated Redis connection per follower blocked in XREAD BLOCK (5 s), rather
// than polling: a new event reaches the client at once, and an idle follower costs Redis nothing
// but a socket. The connection is opened only once the backlog is sent and the run is still going
// (replaying a finished run opens none), and it is disconnected on return, on error and on abort,
// which also cuts a pending XREAD short. Each wake-up re-reads the run's status, so a run that
// ends without writing an event is still noticed within one block period.
import type { Redis } from 'ioredis';
import type { FleetContext } from '../../fleet/fleet-context.js';
import type { StoredEvent } from '../../engine/run-engine.js';
import { isTerminal, type RunStatus } from '../../engine/run-types.js';

const PAGE_SIZE = 500;
export const FOLLOW_BLOCK_MS = 5_000;
// cancelRun and the workers write the `run-end` event just after the status turns terminal. A
// follower that sees the status first waits this long for that event before it ends the stream.
export const END_GRACE_MS = 2_000;
/** CLIENT LIST name of the followers' connections (plus the fleet prefix), for operators. */
export const EVENTS_CONNECTION_NAME = 'buildfleet-api-events';

export type FollowOutcome = { ended: true; status: RunStatus } | { ended: false };

/** Hands every event after `afterId` ('-' = from the start) to `send`, in order, until the run
 * is terminal (`ended: true`) or the signal aborts or the run disappears (`ended: false`). */
export async function followRunEvents({
  fleet,
  runId,
  afterId,
  signal,
  send,
  blockMs = FOLLOW_BLOCK_MS,
  endGraceMs = END_GRACE_MS,
}: {
  fleet: FleetContext;
  runId: string;
  afterId: string;
  signal: AbortSignal;
  send: (event: StoredEvent) => Promise<void>;
  blockMs?: number;
  endGraceMs?: number;
}): Promise<FollowOutcome> {
  let lastId = afterId;
  let sawRunEnd = false;
  let blocking: Redis | null = null;

  const deliver = async (events: StoredEvent[]) => {
    for (const event of events) {
      if (signal.aborted) return;
      await send(event);
      lastId = event.id;
      if (event.event === 'run-end') sawRunEnd = true;
    }
  };
  const drain = async () => {
    for (;;) {
      const page = await fleet.store.readEvents(runId, lastId, PAGE_SIZE);
      await deliver(page);
      if (page.length < PAGE_SIZE || signal.aborted) return;
    }
  };
  const disconnect = () => {
    blocking?.disconnect();
  };
  signal.addEventListener('abort', disconnect, { once: true });

  try {
    await drain();
    while (!signal.aborted) {
      const run = await fleet.store.getRun(runId);
      if (!run) return { ended: false };
      let waitMs = blockMs;
      if (isTerminal(run.status)) {
        await drain();
        const endedAgoMs = Date.now() - Date.parse(run.updatedAt);
        if (sawRunEnd || !(endedAgoMs < endGraceMs)) return signal.aborted ? { ended: false } : { ended: true, status: run.status };
        waitMs = Math.max(1, Math.min(blockMs, endGraceMs - endedAgoMs));
      }
      if (!blocking) {
        blocking = fleet.redis.duplicate({ connectionName: `${EVENTS_CONNECTION_NAME}-${fleet.config.BUILDFLEET_PREFIX}` });
        // Failures surface as rejected commands below; the listener only keeps an 'error' event
        // from becoming an uncaught exception.
        blocking.on('error', () => undefined);
      }
      // The stream is the engine's: it reads and validates the events, on this follower's own
      // connection, since XREAD BLOCK holds it for the whole wait.
      await deliver(await fleet.store.readEventsBlocking(blocking, runId, lastId, waitMs, PAGE_SIZE));
    }
    return { ended: false };
  } catch (error) {
    // Disconnecting on abort rejects the pending XREAD; that is a normal end, not a failure.
    if (signal.aborted) return { ended: false };
    throw error;
  } finally {
    signal.removeEventListener('abort', disconnect);
    disconnect();
  }
}
