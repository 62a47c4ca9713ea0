// One run event as lines of a readable timeline, shared by `buildfleet logs` (the whole run at
// once) and `tail` (live): the model's turns with their text, each tool call with its verdict and
// a short input and output, phase changes, waits and retries, questions and the end. Events a
// person following a build does not need (streaming progress, tool starts) print nothing.
import { describeEvent, formatUsd } from './follow-run.js';
import { summarizeValue } from './summarize-value.js';
import type { TimelineEvent, TimelineEventOf, ToolCallView, TurnSummary } from './run-payload-reader.js';

const count = new Intl.NumberFormat('en-US');
/** Lines of a turn's text shown unless --full: enough to follow the model's reasoning. */
export const TEXT_LINES = 6;
const CONTINUATION = ' '.repeat(10);

/** HH:MM:SS (UTC) of an event's time. */
function clockOf(at: unknown): string {
  const time = typeof at === 'string' ? new Date(at) : null;
  return time && !Number.isNaN(time.getTime()) ? time.toISOString().slice(11, 19) : '--:--:--';
}

const text = (value: unknown) => (value === undefined || value === null ? '' : String(value));
const seconds = (ms: unknown) => `${(Number(ms) / 1000).toFixed(Number(ms) < 10_000 ? 1 : 0)} s`;

function describeTurn(event: TimelineEventOf<'model-call-end'>, turn: TurnSummary | null, full: boolean): string[] {
  const usage = turn?.usage ?? event.usage;
  const input = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_write_5m_input_tokens + usage.cache_write_1h_input_tokens;
  const cost = turn?.costUsd ?? event.cost_usd;
  const parts = [
    `turn ${event.step}`,
    ...(turn?.phase ? [turn.phase] : []),
    `stop ${text(turn?.stopReason ?? event.stop_reason)}`,
    `${count.format(input)} in / ${count.format(usage.output_tokens)} out`,
    formatUsd(cost),
    ...(turn?.modelDurationMs == null ? [] : [`${count.format(turn.modelDurationMs)} ms`]),
    ...(turn && turn.attempt !== null && turn.attempt > 1 ? [`attempt ${turn.attempt}`] : []),
  ];
  const lines = [parts.join(' · ')];
  const written = turn?.text?.trim();
  if (written) {
    const textLines = written.split('\n');
    const shown = full ? textLines : textLines.slice(0, TEXT_LINES);
    lines.push(...shown.map((line) => `  │ ${line}`.trimEnd()));
    if (shown.length < textLines.length) lines.push(`  │ … ${textLines.length - shown.length} more lines (--full shows them)`);
  }
  return lines;
}

const VERDICT_MARKS: Record<string, string> = { valid: '✓', degraded: '~', invalid: '✗', not_validated: '✗' };

function describeToolCall(event: TimelineEventOf<'tool-call-end'>, call: ToolCallView | null): string[] {
  if (!call) return [`  → ${event.tool}  ${event.ok ? '✓' : `✗ ${text(event.error_code)}`} · ${event.duration_ms} ms`];
  const mark = call.verdict ? (VERDICT_MARKS[call.verdict] ?? '?') : call.status === 'ok' ? '✓' : '✗';
  const verdict = [
    call.verdict ?? call.status,
    ...(call.errorCode ? [call.errorCode] : []),
    ...(call.verdictReason && call.verdictReason !== call.errorCode ? [call.verdictReason] : []),
  ].join(' ');
  const timing = call.durationMs === null ? '' : ` · ${count.format(call.durationMs)} ms`;
  const retried = call.attempt !== null && call.attempt > 1 ? ` · attempt ${call.attempt}` : '';
  const lines = [`  → ${call.tool} ${summarizeValue(call.input, 120)}`, `    ${mark} ${verdict}${timing}${retried}`];
  if (call.result) {
    const shown = call.result.isError || call.result.output === undefined ? (call.result.errorReason ?? call.result.content) : call.result.output;
    lines.push(`    ← ${summarizeValue(shown, 140)}`);
  }
  if (call.injectionFlags.length > 0) lines.push(`    ! injection-like text flagged: ${call.injectionFlags.flatMap((flag) => flag.patterns).join(', ')}`);
  return lines;
}

function describeOther(event: TimelineEvent): string[] {
  switch (event.event) {
    case 'run-create':
      return [`created · model ${text(event.model)} · max_tokens ${text(event.max_tokens)}`];
    case 'turn-start':
      // A turn's first attempt is its answer's line; a retry is news.
      return event.attempt > 1 ? [`↻ turn ${event.step} again (attempt ${event.attempt})`] : [];
    case 'tool-call-dispatch':
    case 'tool-call-start':
    case 'model-progress':
      // The call's end says all of it; progress is for a live spinner, not a timeline.
      return [];
    case 'input-wait':
      return [`? the agent asks: ${text(event.question)}`];
    case 'input-receive':
      return [`  ✓ the question was answered${typeof event.answer === 'string' ? `: ${text(event.answer)}` : ''}`];
    case 'model-call-fail':
      return [
        `  ! model call failed (${text(event.outcome)}${event.status ? `, ${text(event.status)}` : ''}, ` +
          `attempt ${text(event.attempt)}): ${text(event.message)}`,
      ];
    case 'model-rate-limit-wait':
      return [`  … rate limited; retry in ${seconds(event.wait_ms)} (cycle ${text(event.cycle)})`];
    case 'model-overload-wait':
      return [`  … the model API is overloaded; retry in ${seconds(event.wait_ms ?? 0)} (overloaded ${seconds(event.overloaded_for_ms)} of this turn)`];
    case 'model-admission-wait':
      return [`  … waits ${seconds(event.wait_ms)} for the ${text(event.limit)} limit (admission)`];
    case 'max-tokens-raise':
      return [`  ↑ max_tokens ${text(event.from)} → ${text(event.to)} (the answer was cut off)`];
    case 'tool-call-recover':
      return [`  ↺ ${text(event.tool)} was written as text; recovered (${text(event.parse_mode)})`];
    case 'tool-call-truncate':
      return [`  ✂ ${text(event.tool)} was cut off by max_tokens; the model is asked to reissue it`];
    case 'stop-sequence-match':
      return [`  ${text(event.sequence).trim()} stop sequence → ${text(event.action)}`];
    case 'stop-reason-reject':
      return [`  ! unknown stop_reason ${text(event.raw_stop_reason)}`];
    case 'killswitch-trip':
      return [`  ⛔ kill switch tripped${event.tool ? ` on ${text(event.tool)}` : ''}: writes refused`];
    case 'job-fail':
      return [`  ! ${text(event.queue)} job ${text(event.job_id)} failed for good after ${text(event.attempts_made)} attempts: ${text(event.reason)}`];
    case 'run-resume':
      return [`↻ the reaper handed turn ${event.step} to a new job (${text(event.reason)}, recovery ${text(event.recovery)})`];
    case 'run-reopen':
      return [`↻ resumed at turn ${event.step} after ${text(event.error_code)} (resume ${text(event.reopen)})`];
    case 'run-stall':
      return [`  ! stalled: no live job after ${text(event.recoveries)} recoveries`];
    default: {
      // Phase changes, rejections, the finish gate's notes and the end read as in --follow.
      const line = describeEvent(event);
      return line === null ? [] : [line.trimStart() === line ? line : line.replace(/^ {4}/, '  ')];
    }
  }
}

/** The lines of one event, the first stamped with its time; [] for events a reader can skip. */
export function describeTimelineEvent({
  event,
  turn = null,
  toolCall = null,
  full = false,
}: {
  event: TimelineEvent;
  /** The turn of a `model-call-end` event. */
  turn?: TurnSummary | null;
  /** The call of a `tool-call-end` event. */
  toolCall?: ToolCallView | null;
  /** Every line of the model's text, not the first few. */
  full?: boolean;
}): string[] {
  const lines =
    event.event === 'model-call-end'
      ? describeTurn(event, turn, full)
      : event.event === 'tool-call-end'
        ? describeToolCall(event, toolCall)
        : describeOther(event);
  return lines.map((line, index) => (index === 0 ? `${clockOf(event.at)}  ${line}` : `${CONTINUATION}${line}`));
}
