// What each event of a run's timeline ends, and how long that took: a model call's answer or
// failure (its `duration_ms`, else since its turn-start), a tool call's end (its `duration_ms`), the
// user's answer (since the question), the run's end (since its first event). The timeline shows
// the duration beside the event's time. Pure; typed by the fleet's event catalog.
import type { RunEventName } from '../../src/domain/run-events.js';
import type { WaterfallEvent } from './waterfall-layout.js';

const NAMES = {
  turnStart: 'turn-start',
  modelCallEnd: 'model-call-end',
  modelCallFail: 'model-call-fail',
  toolEnd: 'tool-call-end',
  inputWait: 'input-wait',
  inputReceive: 'input-receive',
  runEnd: 'run-end',
  runReopen: 'run-reopen',
} as const satisfies Record<string, RunEventName>;

/** The duration (ms) each event that ends something ends, by event id. */
export function eventDurations(events: readonly WaterfallEvent[]): Map<string, number> {
  const durations = new Map<string, number>();
  const callStarts = new Map<number, number>();
  const questions = new Map<string, number>();
  let runStart: number | null = null;
  for (const event of events) {
    const atMs = Date.parse(event.at);
    if (!Number.isFinite(atMs)) continue;
    runStart ??= atMs;
    const reported = typeof event.duration_ms === 'number' && Number.isFinite(event.duration_ms) ? event.duration_ms : null;
    switch (event.event) {
      case NAMES.turnStart:
        callStarts.set(event.step, atMs);
        break;
      case NAMES.modelCallEnd:
      case NAMES.modelCallFail: {
        const started = callStarts.get(event.step);
        callStarts.delete(event.step);
        const duration = reported ?? (started === undefined ? null : atMs - started);
        if (duration !== null) durations.set(event.id, duration);
        break;
      }
      case NAMES.toolEnd:
        if (reported !== null) durations.set(event.id, reported);
        break;
      case NAMES.inputWait:
        if (typeof event.tool_use_id === 'string') questions.set(event.tool_use_id, atMs);
        break;
      case NAMES.inputReceive: {
        const asked = typeof event.tool_use_id === 'string' ? questions.get(event.tool_use_id) : undefined;
        if (asked !== undefined) durations.set(event.id, atMs - asked);
        break;
      }
      case NAMES.runEnd:
        durations.set(event.id, atMs - runStart);
        break;
      case NAMES.runReopen:
        // A resumed run's next end is timed from the resume.
        runStart = atMs;
        break;
      default:
        break;
    }
  }
  return durations;
}
