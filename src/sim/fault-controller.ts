// The queue of scripted faults. Requests take from it in order: the first matching non-latency
// fault is consumed (one of its `count`), and every matching latency fault adds its delay. An
// `overload_episode` is not consumed: it answers every matching request until its window, counted
// from when it was queued, has passed.
import { faultListSchema, type FaultSpec } from './fault-spec.js';

export interface QueuedFault {
  fault: FaultSpec;
  /** Requests it still applies to; Infinity for a latency fault or an overload episode. */
  remaining: number;
  /** For an overload episode: when its window closes (ms since the epoch). */
  endsAtMs?: number;
}

export interface TakenFaults {
  /** Extra delay from latency faults, in ms. */
  latencyMs: number;
  /** The fault this request suffers, if any. */
  fault: FaultSpec | undefined;
}

function latencyOf(fault: Extract<FaultSpec, { kind: 'latency' }>): number {
  if (fault.delayMs !== undefined) return fault.delayMs;
  const minimum = fault.minMs ?? 0;
  const maximum = Math.max(minimum, fault.maxMs ?? minimum);
  return minimum + Math.random() * (maximum - minimum);
}

/** Scripted faults for a running simulator. */
export class FaultController {
  readonly #queue: QueuedFault[] = [];
  readonly #clock: () => number;

  constructor({ clock = Date.now }: { clock?: () => number } = {}) {
    this.#clock = clock;
  }

  /** Queues faults (validated; throws a ZodError on an invalid fault). */
  add(faults: FaultSpec | readonly FaultSpec[]): void {
    for (const fault of faultListSchema.parse(faults)) {
      if (fault.kind === 'overload_episode') {
        this.#queue.push({ fault, remaining: Number.POSITIVE_INFINITY, endsAtMs: this.#clock() + fault.durationMs });
        continue;
      }
      const remaining = fault.count ?? (fault.kind === 'latency' ? Number.POSITIVE_INFINITY : 1);
      this.#queue.push({ fault, remaining });
    }
  }

  /** Drops every queued fault; returns how many there were. */
  clear(): number {
    return this.#queue.splice(0).length;
  }

  /** The faults still queued, oldest first. */
  pending(): readonly QueuedFault[] {
    this.#dropEndedEpisodes();
    return this.#queue.map((queued) => ({ ...queued }));
  }

  /** Consumes what applies to one request from run `runId`. */
  take({ runId }: { runId: string | undefined }): TakenFaults {
    this.#dropEndedEpisodes();
    const matches = (queued: QueuedFault) => queued.fault.runId === undefined || queued.fault.runId === runId;
    let latencyMs = 0;
    for (const queued of this.#queue) {
      if (queued.fault.kind !== 'latency' || !matches(queued)) continue;
      latencyMs += latencyOf(queued.fault);
      queued.remaining -= 1;
    }
    const taken = this.#queue.find((queued) => queued.fault.kind !== 'latency' && matches(queued));
    if (taken && taken.fault.kind !== 'overload_episode') taken.remaining -= 1;
    for (let index = this.#queue.length - 1; index >= 0; index -= 1) {
      if ((this.#queue[index]?.remaining ?? 0) <= 0) this.#queue.splice(index, 1);
    }
    return { latencyMs, fault: taken?.fault };
  }

  #dropEndedEpisodes(): void {
    const now = this.#clock();
    for (let index = this.#queue.length - 1; index >= 0; index -= 1) {
      const endsAtMs = this.#queue[index]?.endsAtMs;
      if (endsAtMs !== undefined && endsAtMs <= now) this.#queue.splice(index, 1);
    }
  }
}
