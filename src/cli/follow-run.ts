// Follows a run live over the API's Server-Sent Events and prints its progress: phase changes,
// todos, tool calls and the end, then what the run cost and how much of its input the prompt
// cache served.
import { CLI } from './cli-name.js';
import type { ApiClient } from './api-client.js';
import { isTerminal, type RunStatus } from '../domain/run-outcomes.js';

export interface RunView {
  id: string;
  status: RunStatus;
  phase: string;
  turn: number;
  todos: Array<{ id: string; title: string; done: boolean }>;
  result: string | null;
  error: { code: string; message: string } | null;
  deployment: { latest: { id: string; url: string } | null; live: { id: string; url: string } | null };
  usage: {
    input_tokens: number;
    cache_write_5m_input_tokens: number;
    cache_write_1h_input_tokens: number;
    cache_read_input_tokens: number;
    output_tokens: number;
  };
  cacheHitRatio: number | null;
  costUsd: number;
}

const count = new Intl.NumberFormat('en-US');

/** Dollars with enough digits that a cheap run does not read $0.00. */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** The cache hit ratio as a percentage, `n/a` before any input. */
export function formatCacheHit(ratio: number | null): string {
  return ratio === null ? 'n/a' : `${(ratio * 100).toFixed(1)}%`;
}

/** One line: the run's cost, its cache hit ratio and its tokens by class. */
export function describeRunCost(view: Pick<RunView, 'usage' | 'cacheHitRatio' | 'costUsd'>): string {
  const { usage } = view;
  const hit = formatCacheHit(view.cacheHitRatio);
  const writes = usage.cache_write_5m_input_tokens + usage.cache_write_1h_input_tokens;
  return (
    `cost ${formatUsd(view.costUsd)} · cache hit ${hit} · tokens: ${count.format(usage.input_tokens)} uncached in, ` +
    `${count.format(usage.cache_read_input_tokens)} cache reads, ${count.format(writes)} cache writes, ${count.format(usage.output_tokens)} out`
  );
}

/** Parses an SSE byte stream into {event, data} records. */
export async function* readServerSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id?: string; event: string; data: string }> {
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let boundary = buffered.indexOf('\n\n');
    while (boundary !== -1) {
      const block = buffered.slice(0, boundary);
      buffered = buffered.slice(boundary + 2);
      boundary = buffered.indexOf('\n\n');
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('id:')) id = line.slice(3).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (data.length > 0 || event !== 'message') yield { ...(id ? { id } : {}), event, data: data.join('\n') };
    }
  }
}

export function describeEvent(event: Record<string, unknown>): string | null {
  switch (event.event) {
    case 'run-create':
      return `run ${String(event.run_id)} created (model ${String(event.model)})`;
    case 'phase-change':
      return `▸ phase ${String(event.from)} → ${String(event.to)}`;
    case 'tool-call-dispatch':
      return `  · ${String(event.tool)}${event.parse_mode && event.parse_mode !== 'native' ? ` (recovered from ${String(event.parse_mode)})` : ''}`;
    case 'tool-call-end':
      return event.ok ? null : `    ✗ ${String(event.tool)}: ${String(event.error_code)} ${String(event.message ?? '')}`;
    case 'tool-call-reject':
      return `    ✗ ${String(event.tool)} rejected: ${String(event.reason)}`;
    case 'input-wait':
      return `? the agent asks: ${String(event.question)}  (answer with: ${CLI} input ${String(event.run_id)} "<text>")`;
    case 'summary-fallback-use':
      return `  ! the model kept calling tools after the finish gate passed; the run ends with finish_turn's summary`;
    case 'finish-suspect':
      return `  ! the model stopped early; still missing: ${(event.missing as string[] | undefined)?.join('; ') ?? ''}`;
    case 'model-rate-limit-wait':
      // A retry-after is waited out by the whole model queue; a 429 naming no wait (backoff) by this run only.
      return event.backoff
        ? `  … rate limited, this run backs off ${String(event.wait_ms)} ms`
        : `  … rate limited, the fleet waits ${String(event.wait_ms)} ms`;
    case 'model-progress': {
      // A long answer streaming: what is being written and how far it has got.
      const what = event.tool ? `writing ${String(event.tool)}` : `writing ${String(event.block ?? 'the answer')}`;
      const tokens = `${event.estimated ? '≈' : ''}${String(event.output_tokens)} tokens`;
      return `  … ${what} (${tokens}, ${Math.round(Number(event.elapsed_ms) / 1000)} s)`;
    }
    case 'model-overload-wait':
      return (
        `  … the model API is overloaded; the fleet waits ${String(event.wait_ms)} ms ` +
        `(overloaded for ${Math.round(Number(event.overloaded_for_ms) / 1000)} s of this turn)`
      );
    case 'model-call-fail':
      return event.outcome === 'overloaded' || event.outcome === 'rate_limited'
        ? null
        : `  ! model call failed (${String(event.outcome)}): ${String(event.message)}`;
    case 'run-end':
      return `■ run ${String(event.status)}${event.error_code ? ` (${String(event.error_code)}: ${String(event.message ?? '')})` : ''}`;
    default:
      return null;
  }
}

/** Follows until the run ends, then prints what it cost; returns its final view. */
export async function followRun(client: ApiClient, runId: string, print: (line: string) => void): Promise<RunView> {
  const view = await followRunEvents(client, runId, print);
  print(`  ${describeRunCost(view)}`);
  return view;
}

async function followRunEvents(client: ApiClient, runId: string, print: (line: string) => void): Promise<RunView> {
  let lastTodos = '';
  const printTodos = async () => {
    const view = await client.request<RunView>('GET', `/v1/runs/${runId}`);
    const todos = view.todos.map((todo) => `${todo.done ? '☑' : '☐'} ${todo.title}`).join('  ');
    if (todos && todos !== lastTodos) {
      lastTodos = todos;
      print(`  todos: ${todos}`);
    }
    return view;
  };
  let lastEventId: string | undefined;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    try {
      const response = await fetch(`${client.baseUrl}/v1/runs/${runId}/events`, {
        headers: client.headers({ accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }),
      });
      if (!response.ok || !response.body) throw new Error(`events stream answered ${response.status}`);
      for await (const message of readServerSentEvents(response.body)) {
        if (message.id) lastEventId = message.id;
        if (message.event === 'end') return await printTodos();
        if (!message.data) continue;
        const event = JSON.parse(message.data) as Record<string, unknown>;
        const line = describeEvent(event);
        if (line) print(line);
        if (event.event === 'tool-call-end' && (event.tool === 'todo_write' || event.tool === 'todo_complete')) await printTodos();
      }
    } catch (error) {
      print(`  (event stream interrupted: ${error instanceof Error ? error.message : String(error)}; reconnecting)`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const view = await client.request<RunView>('GET', `/v1/runs/${runId}`);
    if (isTerminal(view.status)) return view;
  }
  return client.request<RunView>('GET', `/v1/runs/${runId}`);
}
