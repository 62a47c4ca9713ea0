// One Redis connection that follows the event streams of many runs at once: a loop of XREAD BLOCK
// over every subscribed run (RunEngine.readEventsOfRunsBlocking), handing each run's new events to
// its subscriptions. It replaces one blocked connection per SSE client, so a process's Redis
// connections no longer grow with its clients (event-stream-multiplexer.ts keeps a few of these).
//
// - A subscription keeps its run in every XREAD for as long as it is open, with the id of the last
//   event it was given, so a client that keeps up costs no extra command per event.
// - A new subscription (or one whose run is not in the XREAD in flight, or is further back) ends the
//   wait at once with CLIENT UNBLOCK from the engine's shared connection (docs: "CLIENT UNBLOCK …
//   can unblock … a client blocked … for instance in BRPOP or XREAD", the call then returns as on
//   its timeout), instead of waiting out the block period. If the XREAD has not reached Redis yet,
//   UNBLOCK answers 0 and is sent again shortly.
// - A slow client's undelivered events are bounded: past MAX_QUEUED_EVENTS its run leaves the XREAD
//   until the client has taken them.
// - The connection is opened with the first subscription and closed after `idleCloseMs` without
//   any, so an API process with no open stream holds none.
// - A failed XREAD (the connection dropped) fails the subscriptions then waiting: their streams end
//   and clients reconnect with Last-Event-ID, as they would with a connection of their own.
//
// On Redis Cluster the XREAD BLOCK cannot be shared: each run's stream is in a slot of its own, an
// XREAD naming several slots is refused (CROSSSLOT), and a connection blocked on one node cannot
// wait for streams on the others. There the reader polls instead (RunEngine.readEventsOfRuns): one
// XREAD COUNT (no BLOCK) per followed run, sent together through the shared cluster client (no
// connection of its own), and when none had new events a pause of `pollIntervalMs` before the next
// round. What that costs: while idle, one XREAD per followed run per poll interval (200 followed
// runs at 150 ms: ~1,300 commands/s spread over the nodes), against one blocked command on one
// server; and a live event waits up to one interval. A new subscription (or one that needs an
// earlier cursor, or a drained one coming back) ends the pause at once, as CLIENT UNBLOCK does on
// one server; one arriving while a round's XREADs are out makes the next round start at once.
// The bounded queue, the failure of the subscriptions whose read failed and the idle stop are the
// same.
import { duplicateConnection, isCluster, type RedisClient } from '../../redis/redis-connection.js';
import type { RunEngine, StoredEvent } from '../../engine/index.js';
import { compareStreamIds } from './stream-ids.js';

/** Events a subscription may hold undelivered before its run leaves the XREAD. */
export const MAX_QUEUED_EVENTS = 1_000;
const PAGE_SIZE = 500;
// How often, and how long apart, UNBLOCK is retried while the XREAD is still on its way to Redis.
const UNBLOCK_ATTEMPTS = 50;
const UNBLOCK_RETRY_MS = 2;
/** On Redis Cluster, the pause between rounds that found nothing: a live event's latency at most,
 * against one XREAD per followed run per interval while idle. */
export const CLUSTER_POLL_INTERVAL_MS = 150;

/** What a follower reads a run's new events through. */
export interface EventSubscription {
  /** The events queued for this subscription, waiting up to `timeoutMs` for some when there are
   * none ([] when the wait ends empty or the signal aborts). Rejects when the run's events do not
   * decode or the shared connection failed. */
  next(input: { timeoutMs: number; signal: AbortSignal }): Promise<StoredEvent[]>;
  close(): void;
}

interface Subscription extends EventSubscription {
  runId: string;
  /** The id of the last event queued (or the start cursor). */
  cursor: string;
  queue: StoredEvent[];
  failure: Error | null;
  /** Set while next() waits. */
  wake: (() => void) | null;
  closed: boolean;
}

export interface SharedEventReaderOptions {
  engine: RunEngine;
  /** A connection to duplicate for the blocking reads (one server), or the cluster client the
   * polls go through (Redis Cluster). */
  redis: RedisClient;
  /** CLIENT LIST name of the blocking connection (one server). */
  connectionName: string;
  /** Longest XREAD BLOCK (one server). */
  blockMs: number;
  idleCloseMs: number;
  /** Pause between polls that found nothing (Redis Cluster); CLUSTER_POLL_INTERVAL_MS by default. */
  pollIntervalMs?: number;
}

export class SharedEventReader {
  private readonly byRun = new Map<string, Set<Subscription>>();
  private connection: RedisClient | null = null;
  private running = false;
  private closed = false;
  /** The cursors of the XREAD in flight (on a cluster: of the round being read or paused after), by
   * run, and the client id of its connection (one server). */
  private inFlight: { cursors: Map<string, string>; clientId: Promise<number> | null } | null = null;
  private unblocking = false;
  /** A change came while an UNBLOCK was on its way: look again when it is done. */
  private unblockAgain = false;
  private wakeIdle: (() => void) | null = null;
  /** Cluster: ends the pause between rounds. */
  private wakePoll: (() => void) | null = null;
  /** Cluster: a change came while a round's XREADs were out: start the next round at once. */
  private pollAgain = false;
  private readonly polling: boolean;

  constructor(private readonly options: SharedEventReaderOptions) {
    this.polling = isCluster(options.redis);
  }

  /** Follows a run from after `afterId` ('-' = from the start). */
  subscribe({ runId, afterId }: { runId: string; afterId: string }): EventSubscription {
    if (this.closed) throw new Error('the event reader is closed');
    const subscription: Subscription = {
      runId,
      cursor: afterId,
      queue: [],
      failure: null,
      wake: null,
      closed: false,
      next: (input) => this.next(subscription, input),
      close: () => this.unsubscribe(subscription),
    };
    let subscriptions = this.byRun.get(runId);
    if (!subscriptions) this.byRun.set(runId, (subscriptions = new Set()));
    subscriptions.add(subscription);
    this.readMore(runId, afterId);
    return subscription;
  }

  /** How many subscriptions are open (for tests and operators). */
  get subscriptionCount(): number {
    let count = 0;
    for (const subscriptions of this.byRun.values()) count += subscriptions.size;
    return count;
  }

  /** Ends every wait and closes the connection; open subscriptions read nothing more. */
  close(): void {
    this.closed = true;
    for (const subscriptions of this.byRun.values()) for (const subscription of subscriptions) subscription.wake?.();
    this.byRun.clear();
    this.wakeIdle?.();
    this.wakePoll?.();
    this.disconnect();
  }

  private async next(subscription: Subscription, { timeoutMs, signal }: { timeoutMs: number; signal: AbortSignal }): Promise<StoredEvent[]> {
    if (subscription.queue.length === 0 && subscription.failure === null && !subscription.closed && !this.closed && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          subscription.wake = null;
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        signal.addEventListener('abort', done, { once: true });
        subscription.wake = done;
      });
    }
    if (subscription.failure) throw subscription.failure;
    const events = subscription.queue.splice(0);
    // A subscription that had too much queued left the XREAD; it may come back now.
    if (events.length >= MAX_QUEUED_EVENTS && !subscription.closed) this.readMore(subscription.runId, subscription.cursor);
    return events;
  }

  private unsubscribe(subscription: Subscription): void {
    subscription.closed = true;
    subscription.wake?.();
    const subscriptions = this.byRun.get(subscription.runId);
    subscriptions?.delete(subscription);
    if (subscriptions?.size === 0) this.byRun.delete(subscription.runId);
    // With nothing left to follow, end the wait now, so the connection is given back after
    // idleCloseMs rather than after the block period.
    if (this.byRun.size === 0 && this.inFlight) this.interrupt();
  }

  /** A subscription of `runId` wants events after `cursor`: make sure a read covers it. */
  private readMore(runId: string, cursor: string): void {
    if (this.closed) return;
    if (!this.running) {
      void this.run();
      return;
    }
    if (this.wakeIdle) {
      this.wakeIdle();
      return;
    }
    if (this.inFlight && this.needsUnblock(runId, cursor)) this.interrupt();
  }

  /** Ends the wait in flight (the blocked XREAD, or the pause between polls) so the next read
   * includes what changed. */
  private interrupt(): void {
    if (!this.polling) {
      void this.unblock();
    } else if (this.wakePoll) {
      this.wakePoll();
    } else {
      this.pollAgain = true;
    }
  }

  /** One cursor per run: the earliest among its subscriptions that can take more events. */
  private cursors(): Array<{ runId: string; afterId: string }> {
    const cursors: Array<{ runId: string; afterId: string }> = [];
    for (const [runId, subscriptions] of this.byRun) {
      let earliest: string | null = null;
      for (const subscription of subscriptions) {
        if (subscription.failure || subscription.queue.length >= MAX_QUEUED_EVENTS) continue;
        if (earliest === null || compareStreamIds(subscription.cursor, earliest) < 0) earliest = subscription.cursor;
      }
      if (earliest !== null) cursors.push({ runId, afterId: earliest });
    }
    return cursors;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (!this.closed) {
        const cursors = this.cursors();
        if (cursors.length === 0) {
          if (await this.idle()) continue;
          // Nothing to follow for idleCloseMs: give the connection back (unless a subscription
          // arrived in the meantime).
          if (this.cursors().length === 0) break;
          continue;
        }
        if (this.polling) {
          await this.poll(cursors);
          continue;
        }
        const connection = this.connect();
        const clientId = connection.client('ID') as Promise<number>;
        clientId.catch(() => undefined);
        this.inFlight = { cursors: new Map(cursors.map((cursor) => [cursor.runId, cursor.afterId])), clientId };
        try {
          this.deliver(await this.options.engine.readEventsOfRunsBlocking(connection, cursors, this.options.blockMs, PAGE_SIZE));
        } catch (error) {
          if (this.closed) break;
          this.failWaiting(cursors, error instanceof Error ? error : new Error(String(error)));
          this.disconnect();
        } finally {
          this.inFlight = null;
        }
      }
    } finally {
      this.running = false;
      this.disconnect();
      if (!this.closed && this.cursors().length > 0) void this.run();
    }
  }

  /** Cluster: one round of non-blocking reads, then (when it found nothing to read on) a pause of
   * the poll interval, which a change cuts short. */
  private async poll(cursors: ReadonlyArray<{ runId: string; afterId: string }>): Promise<void> {
    this.inFlight = { cursors: new Map(cursors.map((cursor) => [cursor.runId, cursor.afterId])), clientId: null };
    this.pollAgain = false;
    try {
      let reply: Map<string, StoredEvent[] | Error>;
      try {
        reply = await this.options.engine.readEventsOfRuns(cursors, PAGE_SIZE);
      } catch (error) {
        if (this.closed) return;
        this.failWaiting(cursors, error instanceof Error ? error : new Error(String(error)));
        return;
      }
      this.deliver(reply);
      // A full page may have more behind it: read again at once. Otherwise new events are read
      // at the next round, so a busy run does not turn the pause into a loop over every run.
      const backlog = [...reply.values()].some((events) => !(events instanceof Error) && events.length >= PAGE_SIZE);
      if (backlog || this.pollAgain || this.closed) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => this.wakePoll?.(), this.options.pollIntervalMs ?? CLUSTER_POLL_INTERVAL_MS);
        this.wakePoll = () => {
          clearTimeout(timer);
          this.wakePoll = null;
          resolve();
        };
      });
    } finally {
      this.inFlight = null;
    }
  }

  /** Waits for a subscription to want events; false after idleCloseMs without one. */
  private idle(): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeIdle = null;
        resolve(false);
      }, this.options.idleCloseMs);
      this.wakeIdle = () => {
        clearTimeout(timer);
        this.wakeIdle = null;
        resolve(true);
      };
    });
  }

  private deliver(reply: Map<string, StoredEvent[] | Error>): void {
    for (const [runId, events] of reply) {
      for (const subscription of this.byRun.get(runId) ?? []) {
        if (subscription.failure) continue;
        if (events instanceof Error) {
          subscription.failure = events;
        } else {
          const fresh = events.filter((event) => compareStreamIds(event.id, subscription.cursor) > 0);
          if (fresh.length === 0) continue;
          subscription.queue.push(...fresh);
          subscription.cursor = fresh[fresh.length - 1]!.id;
        }
        subscription.wake?.();
      }
    }
  }

  private failWaiting(cursors: ReadonlyArray<{ runId: string }>, error: Error): void {
    for (const { runId } of cursors) {
      for (const subscription of this.byRun.get(runId) ?? []) {
        subscription.failure = error;
        subscription.wake?.();
      }
    }
  }

  /** Ends the XREAD in flight so the next one includes what changed. */
  private async unblock(): Promise<void> {
    if (this.unblocking) {
      this.unblockAgain = true;
      return;
    }
    this.unblocking = true;
    try {
      const inFlight = this.inFlight;
      if (!inFlight?.clientId) return;
      const clientId = await inFlight.clientId;
      for (let attempt = 0; attempt < UNBLOCK_ATTEMPTS && this.inFlight === inFlight; attempt += 1) {
        if ((await this.options.redis.client('UNBLOCK', clientId)) === 1) return;
        await new Promise((resolve) => setTimeout(resolve, UNBLOCK_RETRY_MS));
      }
    } catch {
      // The XREAD still ends at its block timeout; a subscription waits at most that long.
    } finally {
      this.unblocking = false;
      // A change that came while this UNBLOCK was on its way may need another (at worst it ends
      // the next XREAD early, which then reads again: nothing is lost).
      if (this.unblockAgain) {
        this.unblockAgain = false;
        if (this.inFlight && this.cursors().some(({ runId, afterId }) => this.needsUnblock(runId, afterId))) void this.unblock();
      }
    }
  }

  private needsUnblock(runId: string, afterId: string): boolean {
    const inFlightCursor = this.inFlight?.cursors.get(runId);
    return inFlightCursor === undefined || compareStreamIds(afterId, inFlightCursor) < 0;
  }

  private connect(): RedisClient {
    if (!this.connection) {
      this.connection = duplicateConnection(this.options.redis, this.options.connectionName);
      // Failures surface as rejected commands; the listener only keeps an 'error' event from
      // becoming an uncaught exception.
      this.connection.on('error', () => undefined);
    }
    return this.connection;
  }

  private disconnect(): void {
    this.connection?.disconnect();
    this.connection = null;
  }
}
