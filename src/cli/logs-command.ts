// `buildfleet logs <run>`: the run's whole timeline so far, readable — each turn with the model's
// text, each tool call with its verdict and a short input and output, phase changes, waits and
// retries, questions and the end — from GET /v1/runs/:id/events, /turns and /tool-calls.
import type { ApiClient } from './api-client.js';
import type { CliIo } from './cli-io.js';
import { describeRunCost } from './follow-run.js';
import { RunPayloadReader } from './run-payload-reader.js';
import { readRunView } from './run-summary.js';
import { describeTimelineEvent } from './timeline-lines.js';

/** Prints the timeline; resolves once every line is printed. */
export async function printRunLogs({ client, runId, io, full = false }: { client: ApiClient; runId: string; io: CliIo; full?: boolean }): Promise<void> {
  // The events first (an unknown run is refused there), the record last: its cost is at least as
  // new as the last event printed.
  const payloads = new RunPayloadReader(client, runId);
  const events = await payloads.events();
  await payloads.readAll();
  const view = await readRunView({ client, runId });
  io.print(`${view.id} · ${view.status} · model ${view.model}`);
  for (const event of events) {
    const turn = event.event === 'model-call-end' ? await payloads.turn(event.step) : null;
    const toolCall = event.event === 'tool-call-end' ? await payloads.toolCall(event.tool_use_id, { refresh: false }) : null;
    for (const line of describeTimelineEvent({ event, turn, toolCall, full })) io.print(line);
  }
  io.print(`  ${describeRunCost(view)}`);
  if (view.deployment.live) io.print(`site: ${view.deployment.live.url}`);
}
