// Small formatting helpers shared by the pages, and the run statuses as the fleet defines them
// (the bundle takes them from the domain's TypeScript: scripts/build-console.mjs).
import { isTerminal as isTerminalStatus, RUN_STATUSES, TERMINAL_STATUSES } from '../../src/domain/run-outcomes.js';

export { RUN_STATUSES, TERMINAL_STATUSES };

/** Whether a status is terminal; a value that is no status at all is not. */
export function isTerminal(status) {
  return RUN_STATUSES.includes(status) && isTerminalStatus(status);
}

/** USD with enough digits for a cheap run to show something. */
export function formatUsd(amount) {
  if (typeof amount !== 'number') return '–';
  return amount < 0.01 ? `$${amount.toFixed(4)}` : `$${amount.toFixed(2)}`;
}

export function formatTokens(count) {
  if (typeof count !== 'number') return '–';
  return count.toLocaleString('en-US');
}

/** Local date and time, to the second. */
export function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'medium' });
}

/** Every token of a run's usage, all classes. */
export function totalTokens(usage) {
  if (!usage || typeof usage !== 'object') return null;
  return Object.values(usage).reduce((sum, value) => sum + (typeof value === 'number' ? value : 0), 0);
}

/** The trace link of a run: the template with its trace id, or null. Only http(s) links are made. */
export function traceUrlOf(template, traceId) {
  if (!template || !traceId || !/^[0-9a-f]{16,32}$/i.test(traceId)) return null;
  const url = template.replaceAll('{traceId}', traceId);
  return /^https?:\/\//i.test(url) ? url : null;
}

/** How a run thinks, as the CLI summary says it (src/cli/run-summary.ts describeThinking):
 * `thinking adaptive (updates) · effort high`. */
export function describeThinking(run) {
  const mode = run.thinking === 'manual' && run.thinkingBudgetTokens ? `manual ${formatTokens(run.thinkingBudgetTokens)}` : String(run.thinking ?? 'off').replace('_', ' ');
  return `thinking ${mode}${run.thinkingDisplay ? ` (${run.thinkingDisplay})` : ''}${run.effort ? ` · effort ${run.effort}` : ''}`;
}
