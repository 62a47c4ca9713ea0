// The event names the run console's timeline treats apart, typed by the fleet's own catalog
// (src/domain/run-events.ts): a renamed or removed event is a compile error here (tsc checks
// console/src/**/*.ts), never a timeline line that silently stops showing. timeline.js matches
// events through these, and names no event itself.
import type { RunEventName } from '../../src/domain/run-events.js';

/** The names the timeline describes or matches, by a key a JavaScript module can spell. */
export const EVENT = {
  runCreate: 'run-create',
  turnStart: 'turn-start',
  modelProgress: 'model-progress',
  modelCallEnd: 'model-call-end',
  phaseChange: 'phase-change',
  inputWait: 'input-wait',
  inputReceive: 'input-receive',
  modelCallFail: 'model-call-fail',
  modelOverloadWait: 'model-overload-wait',
  modelRateLimitWait: 'model-rate-limit-wait',
  modelAdmissionWait: 'model-admission-wait',
  runReopen: 'run-reopen',
  runEnd: 'run-end',
  toolCallRetry: 'tool-call-retry',
  webhookDeliver: 'webhook-deliver',
  webhookFail: 'webhook-fail',
  toolCallEnd: 'tool-call-end',
  toolCallReject: 'tool-call-reject',
  toolOutputInjectionFlag: 'tool-output-injection-flag',
} as const satisfies Record<string, RunEventName>;

/** The events of one tool call, joined on one line by tool_use_id. */
export const TOOL_EVENTS: ReadonlySet<string> = new Set<RunEventName>([
  'tool-call-dispatch',
  'tool-call-start',
  'tool-call-retry',
  'tool-call-end',
  'tool-call-reject',
  'tool-call-recover',
  'tool-call-truncate',
  'tool-call-reemit',
  'tool-output-injection-flag',
]);

/** The events shown as warnings. */
export const WARNING_EVENTS: ReadonlySet<string> = new Set<RunEventName>([
  'model-call-fail',
  'model-overload-wait',
  'model-rate-limit-wait',
  'model-admission-wait',
  'job-fail',
  'run-stall',
  'run-resume',
  'stop-reason-reject',
  'max-tokens-raise',
  'summary-fallback-use',
  'finish-suspect',
  'tool-call-retry',
  'webhook-fail',
]);
