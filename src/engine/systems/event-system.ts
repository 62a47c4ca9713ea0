// The event system: a run's event stream (`keys.events`). It redacts and encodes the events every
// other system's scripts append in the same step as their transition (encode, then emitted once
// stored), appends a trace line on its own, reads streams back validated, and holds the observers
// of events, run ends and parks (the logger, metrics and webhooks take their copy there).
import type { RedisClient } from '../../redis/redis-connection.js';
import type { TerminalStatus } from '../../domain/run-outcomes.js';
import { redactValue } from '../../telemetry/redact-secrets.js';
import type { RunError } from '../run-types.js';
import { defineAppendEventIfRunExistsScript } from '../append-event-if-run-exists-script.js';
import type { RunEndObserver, RunEvent, RunEventObserver, RunParkObserver, StoredEvent } from '../engine-types.js';
import { parseStoredEvent } from './stored-values.js';
import { EngineSystem } from './engine-system.js';

export class EventSystem extends EngineSystem {
  readonly eventObservers: RunEventObserver[] = [];
  readonly endObservers: RunEndObserver[] = [];
  readonly parkObservers: RunParkObserver[] = [];

  observeEvents(observer: RunEventObserver): void {
    this.eventObservers.push(observer);
  }

  /** Observers of run ends (metrics): called once per run, by the process that ended it. */
  observeRunEnds(observer: RunEndObserver): void {
    this.endObservers.push(observer);
  }

  /** Observers of runs parked for input (webhooks): called once per question, by the process that
   * parked the run, after the park is stored. */
  observeParks(observer: RunParkObserver): void {
    this.parkObservers.push(observer);
  }

  /** Redacts and encodes an event for a script to append; `emitted` tells the observers once the
   * script has stored it. Secrets never reach the stream, even inside an error message or a URL. */
  encode(event: RunEvent): { json: string; safe: RunEvent } {
    const safe = redactValue(event);
    return { json: JSON.stringify({ ...safe, at: new Date().toISOString() }), safe };
  }

  emitted(events: ReadonlyArray<{ safe: RunEvent }>): void {
    for (const { safe } of events) for (const observer of this.eventObservers) observer(safe);
  }

  /** Appends a trace line to the run's event stream on its own; returns the stream id. Prefer the
   * transition methods, which append their events in the same step as the state they describe. */
  async appendEvent(event: RunEvent): Promise<string> {
    const encoded = this.encode(event);
    const id = await this.redis.xadd(this.keys.events(event.run_id), 'MAXLEN', '~', '10000', '*', 'data', encoded.json);
    this.emitted([encoded]);
    return id ?? '';
  }

  /**
   * Appends an event only while the run's record exists (one script: webhook deliveries report
   * their attempts after the run ended, possibly after its keys expired, and a plain XADD would
   * then create an event stream nobody expires). False when the run is gone: nothing written.
   */
  async appendEventIfRunExists(event: RunEvent): Promise<boolean> {
    const encoded = this.encode(event);
    const written = await defineAppendEventIfRunExistsScript(this.redis).bfAppendEventIfRunExists(
      this.keys.run(event.run_id),
      this.keys.events(event.run_id),
      encoded.json,
    );
    if (written !== 1) return false;
    this.emitted([encoded]);
    return true;
  }

  /** Up to `count` events after `afterId` ('-' = from the start), oldest first, validated. */
  async readEvents(runId: string, afterId = '-', count = 1000): Promise<StoredEvent[]> {
    const start = afterId === '-' ? '-' : `(${afterId}`;
    const entries = await this.redis.xrange(this.keys.events(runId), start, '+', 'COUNT', count);
    return entries.map(parseStoredEvent);
  }

  /**
   * Like readEvents for many runs at once (one per cursor), waiting up to `blockMs` for an event
   * after any cursor: one XREAD BLOCK over every run's stream, so one connection serves the event
   * streams of many clients (src/api/events/). Returns the runs that have new events, with at most
   * `count` of them each, validated — a run whose events do not decode gets the error instead, so
   * one bad stream does not stop the others. Empty when the wait ends with nothing, or when another
   * connection ends it early (CLIENT UNBLOCK). The wait holds its connection, so the caller passes
   * one of its own (a `duplicate()`), never the engine's shared one, and owns it: it may disconnect
   * it to cut the wait short, which rejects this call. One server only: each run's keys have a
   * slot of their own, so on Redis Cluster the XREAD would be refused (CROSSSLOT) and a connection
   * blocked on one node could not wait for the others' streams — use readEventsOfRuns there.
   */
  async readEventsOfRunsBlocking(
    connection: RedisClient,
    cursors: ReadonlyArray<{ runId: string; afterId: string }>,
    blockMs: number,
    count = 1000,
  ): Promise<Map<string, StoredEvent[] | Error>> {
    const runOfKey = new Map(cursors.map((cursor) => [this.keys.events(cursor.runId), cursor.runId]));
    if (runOfKey.size !== cursors.length) throw new Error('readEventsOfRunsBlocking: one cursor per run');
    // XREAD takes an exclusive start id and has no '-': '0-0' is before every entry.
    const ids = cursors.map((cursor) => (cursor.afterId === '-' ? '0-0' : cursor.afterId));
    const reply = await connection.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', ...runOfKey.keys(), ...ids);
    const events = new Map<string, StoredEvent[] | Error>();
    for (const [key, entries] of reply ?? []) {
      const runId = runOfKey.get(key);
      if (runId === undefined) continue;
      try {
        events.set(runId, entries.map(parseStoredEvent));
      } catch (error) {
        events.set(runId, error instanceof Error ? error : new Error(String(error)));
      }
    }
    return events;
  }

  /**
   * Like readEventsOfRunsBlocking without the wait, for Redis Cluster: one XREAD (COUNT, no BLOCK)
   * per run, sent together through the engine's client, which routes each to its run's node (one
   * XREAD cannot name streams of different slots). Returns the runs that have new events; a run
   * whose read fails or whose events do not decode gets the error instead, so one failing node or
   * bad stream does not stop the others.
   */
  async readEventsOfRuns(cursors: ReadonlyArray<{ runId: string; afterId: string }>, count = 1000): Promise<Map<string, StoredEvent[] | Error>> {
    if (new Set(cursors.map((cursor) => cursor.runId)).size !== cursors.length) throw new Error('readEventsOfRuns: one cursor per run');
    const events = new Map<string, StoredEvent[] | Error>();
    await Promise.all(
      cursors.map(async ({ runId, afterId }) => {
        try {
          const reply = await this.redis.xread('COUNT', count, 'STREAMS', this.keys.events(runId), afterId === '-' ? '0-0' : afterId);
          const entries = reply?.[0]?.[1] ?? [];
          if (entries.length > 0) events.set(runId, entries.map(parseStoredEvent));
        } catch (error) {
          events.set(runId, error instanceof Error ? error : new Error(String(error)));
        }
      }),
    );
    return events;
  }

  runEndEvent(runId: string, turn: number, status: TerminalStatus, error: RunError | null): RunEvent {
    return { run_id: runId, step: turn, event: 'run-end', status, ...(error ? { error_code: error.code, message: error.message } : {}) };
  }
}
