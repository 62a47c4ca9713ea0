// Checked by tsc (npm run typecheck), never run: the run event union refuses a field its event does
// not declare, a name not in the catalog, and a declared field of the wrong type. Each
// `@ts-expect-error` fails the typecheck if the line under it ever compiles.
import { runEventOf, type RunEvent, type RunEventDraft, type RunEventOf } from './run-events.js';

export const typed: RunEvent[] = [
  { run_id: 'run_1', step: 0, event: 'phase-change', from: 'planning', to: 'building' },
  { run_id: 'run_1', step: 1, event: 'tool-call-dispatch', tool: 'write_file', tool_use_id: 'toolu_1', parse_mode: 'native' },
  { run_id: 'run_1', step: 1, event: 'stop-reason-reject', level: 'warn', raw_stop_reason: 'whatever' },
  runEventOf('run_1', 2, 'max-tokens-raise', { from: 1024, to: 2048 }),
];

export const wrongField: RunEvent = {
  run_id: 'run_1',
  step: 0,
  event: 'phase-change',
  from: 'planning',
  to: 'building',
  // @ts-expect-error phase-change declares no tool
  tool: 'write_file',
};

// @ts-expect-error a name not in RUN_EVENTS
export const wrongName: RunEvent = { run_id: 'run_1', step: 0, event: 'phase-changed', from: 'planning', to: 'building' };

// @ts-expect-error max-tokens-raise's from is a number
export const wrongType: RunEventDraft = { event: 'max-tokens-raise', from: '1024', to: 2048 };

// @ts-expect-error tool-call-end without its ok
export const missingField: RunEventDraft = { event: 'tool-call-end', tool: 'write_file', tool_use_id: 'toolu_1', tool_result_status: 'ok', parse_mode: 'native', duration_ms: 1 };

// @ts-expect-error the helper ties the fields to the name: stop-sequence-match declares no turn
export const helperWrongField = runEventOf('run_1', 0, 'stop-sequence-match', { sequence: '\nUser:', action: 'reprompt', turn: 1 });

// @ts-expect-error the helper refuses a name not in RUN_EVENTS
export const helperWrongName = runEventOf('run_1', 0, 'turn-started', {});

// @ts-expect-error an unknown level
export const wrongLevel: RunEventDraft = { event: 'job-fail', level: 'fatal', queue: 'model', job_id: '1', attempts_made: 3, reason: 'x' };

/** Narrowing on `event` gives the event's own fields, typed. */
export function outputTokensOf(event: RunEvent): number | null {
  if (event.event === 'model-progress') return event.output_tokens;
  if (event.event === 'model-call-end') return event.usage.output_tokens;
  // @ts-expect-error turn-start carries no output_tokens
  if (event.event === 'turn-start') return event.output_tokens;
  return null;
}

/** RunEventOf of a union of names is the union of their events. */
export const either: RunEventOf<'webhook-deliver' | 'webhook-fail'> = { run_id: 'run_1', step: 3, event: 'webhook-deliver', webhook_event: 'run.ended', delivery_id: 'd', attempt: 1, attempts: 10, status: 200 };
