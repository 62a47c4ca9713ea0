// `buildfleet status <run>`: a run's record as a readable summary — state, cost, budget, todos,
// files, site, result or error, the open question — read through GET /v1/runs/:id and validated
// against the API's own schema.
import { runViewSchema, type RunView } from '../api/api-schemas.js';
import type { ApiClient } from './api-client.js';
import { describeRunCost, formatUsd } from './follow-run.js';

export type { RunView };

const count = new Intl.NumberFormat('en-US');

/** The run's record, validated. */
export function readRunView({ client, runId }: { client: ApiClient; runId: string }): Promise<RunView> {
  return client.requestValid({ path: `/v1/runs/${encodeURIComponent(runId)}`, schema: runViewSchema });
}

/** 2026-03-01 12:34:56Z: UTC, so two people comparing output see the same times. */
export function formatTime(iso: string): string {
  const time = new Date(iso);
  return Number.isNaN(time.getTime()) ? iso : `${time.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

function formatBudget(budget: RunView['budget']): string | null {
  const parts = [
    ...(budget.usd ? [`${formatUsd(budget.usd.spent)} of ${formatUsd(budget.usd.limit)}${budget.usd.setBy === 'run' ? '' : ` (${budget.usd.setBy})`}`] : []),
    ...(budget.tokens ? [`${count.format(budget.tokens.spent)} of ${count.format(budget.tokens.limit)} tokens`] : []),
  ];
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** How the run thinks, in a few words: `thinking adaptive (updates) · effort high`. */
export function describeThinking(view: Pick<RunView, 'thinking' | 'thinkingBudgetTokens' | 'effort' | 'thinkingDisplay'>): string {
  const mode = view.thinking === 'manual' && view.thinkingBudgetTokens ? `manual ${count.format(view.thinkingBudgetTokens)}` : view.thinking.replace('_', ' ');
  return `thinking ${mode}${view.thinkingDisplay ? ` (${view.thinkingDisplay})` : ''}${view.effort ? ` · effort ${view.effort}` : ''}`;
}

/** The summary's lines, label column first. */
export function describeRunView(view: RunView): string[] {
  const row = (label: string, value: string) => `  ${label.padEnd(9)}${value}`.trimEnd();
  const lines = [`${view.id}  ${view.status}${view.error ? ` (${view.error.code})` : ''}`];
  lines.push(row('agent', `${view.agent} · phase ${view.phase} · turn ${view.turn}`));
  lines.push(row('model', `${view.model} · ${describeThinking(view)}`));
  lines.push(row('created', `${formatTime(view.createdAt)} · updated ${formatTime(view.updatedAt)}`));
  lines.push(row('cost', describeRunCost(view).replace(/^cost /, '')));
  const budget = formatBudget(view.budget);
  if (budget) lines.push(row('budget', budget));
  if (view.todos.length > 0) lines.push(row('todos', view.todos.map((todo) => `${todo.done ? '☑' : '☐'} ${todo.title}`).join('  ')));
  if (view.files.length > 0) {
    const bytes = view.files.reduce((sum, file) => sum + file.bytes, 0);
    lines.push(row('files', `${view.files.length} (${count.format(bytes)} bytes): ${view.files.map((file) => file.path).join(', ')}`));
  }
  if (view.deployment.live) lines.push(row('site', view.deployment.live.url));
  else if (view.deployment.latest) lines.push(row('preview', view.deployment.latest.url));
  if (view.question) {
    lines.push(row('question', view.question.question));
    lines.push(row('', `answer: buildfleet input ${view.id} "<text>"`));
  }
  if (view.error) lines.push(row('error', `${view.error.code}: ${view.error.message}`));
  if (view.result) {
    const [first, ...rest] = view.result.trim().split('\n');
    lines.push(row('result', first ?? ''), ...rest.map((line) => row('', line)));
  }
  if (view.rerunOf) lines.push(row('rerun of', view.rerunOf));
  return lines;
}
