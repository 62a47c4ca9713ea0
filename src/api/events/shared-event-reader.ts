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
import type { Redis } from 'ioredis';
import type { RunEngine, StoredEvent } from '../../engine/run-engine.js';
import { compareStreamIds } from './stream-ids.js';

/** Events a subscription may hold undelivered before its run leaves the XREAD. */
export const MAX_QUEUED_EVENTS = 1_000;
const PAGE_SIZE = 500;
// How often, and how long apart, UNBLOCK is retried while the XREAD is still on its way to Redis.
const UNBLOCK_ATTEMPTS = 50;
const UNBLOCK_RETRY_MS = 2;

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
  /** A connection to duplicate for the blocking reads. */
  redis: Redis;
  /** CLIENT LIST name of the blocking connection. */
  connectionName: string;
  blockMs: number;
  idleCloseMs: number;
}

export class SharedEventReader {
  private readonly byRun = new Map<string, Set<Subscription>>();
  private connection: Redis | null = null;
  private running = false;
  private closed = false;
  /** The cursors of the XREAD in flight, by run, and the client id of its connection. */
  private inFlight: { cursors: Map<string, string>; clientId: Promise<number> } | null = null;
  private unblocking = false;
  /** A change came while an UNBLOCK was on its way: look again when it is done. */
  private unblockAgain = false;
  private wakeIdle: (() => void) | null = null;

  constructor(private readonly options: SharedEventReaderOptions) {}

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
    if (this.byRun.size === 0 && this.inFlight) void this.unblock();
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
    const inFlightCursor = this.inFlight?.cursors.get(runId);
    if (this.inFlight && (inFlightCursor === undefined || compareStreamIds(cursor, inFlightCursor) < 0)) void this.unblock();
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
      if (!inFlight) return;
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

  private connect(): Redis {
    if (!this.connection) {
      this.connection = this.options.redis.duplicate({ connectionName: this.options.connectionName });
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
