// Replays a run's trace events after a given id, then follows new ones live until the run is
// terminal and every event has been handed over.
//
// Following does not poll: the run is subscribed on the process's shared readers
// (event-stream-multiplexer.ts), a few connections blocked in one XREAD over every followed run,
// so a new event reaches the client at once and a follower costs Redis no connection of its own
// (on Redis Cluster they poll each followed run instead: an event within one poll interval).
// The subscription is taken only once the backlog is sent and the run is still going (replaying a
// finished run takes none), and it is closed on return, on error and on abort. Each wake-up
// re-reads the run's status, so a run that ends without writing an event is still noticed within
// one wait period.
import type { FleetContext } from '../../fleet/fleet-context.js';
import { type StoredEvent, isTerminal, type RunStatus } from '../../engine/index.js';
import type { EventStreamMultiplexer } from './event-stream-multiplexer.js';
import type { EventSubscription } from './shared-event-reader.js';
import { compareStreamIds } from './stream-ids.js';

const PAGE_SIZE = 500;
export const FOLLOW_BLOCK_MS = 5_000;
// cancelRun and the workers write the `run-end` event just after the status turns terminal. A
// follower that sees the status first waits this long for that event before it ends the stream.
export const END_GRACE_MS = 2_000;
/** CLIENT LIST name of the shared readers' connections (plus the fleet prefix), for operators. */
export const EVENTS_CONNECTION_NAME = 'buildfleet-api-events';

export type FollowOutcome = { ended: true; status: RunStatus } | { ended: false };

/** Hands every event after `afterId` ('-' = from the start) to `send`, in order, until the run
 * is terminal (`ended: true`) or the signal aborts or the run disappears (`ended: false`). */
export async function followRunEvents({
  fleet,
  events,
  runId,
  afterId,
  signal,
  send,
  blockMs = FOLLOW_BLOCK_MS,
  endGraceMs = END_GRACE_MS,
}: {
  fleet: FleetContext;
  /** The process's shared readers. */
  events: EventStreamMultiplexer;
  runId: string;
  afterId: string;
  signal: AbortSignal;
  send: (event: StoredEvent) => Promise<void>;
  blockMs?: number;
  endGraceMs?: number;
}): Promise<FollowOutcome> {
  let lastId = afterId;
  let sawRunEnd = false;
  let subscription: EventSubscription | null = null;

  const deliver = async (batch: StoredEvent[]) => {
    for (const event of batch) {
      if (signal.aborted) return;
      // The backlog read after a terminal status may have handed over what the subscription
      // brings again.
      if (lastId !== '-' && compareStreamIds(event.id, lastId) <= 0) continue;
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
      subscription ??= events.subscribe({ runId, afterId: lastId });
      await deliver(await subscription.next({ timeoutMs: waitMs, signal }));
    }
    return { ended: false };
  } finally {
    subscription?.close();
  }
}
