// Follows a run live over the API's Server-Sent Events and prints its timeline as it happens
// (`buildfleet tail`, `submit --follow`): the same lines as `logs`, each turn's text and each tool
// call's verdict read from the API as their events arrive. When the run asks a question it is
// answered — with --answer, else at the terminal — and following goes on; with no way to answer,
// following stops there and says how to answer later.
import { CLI } from './cli-name.js';
import { ApiClientError, ApiResponseInvalidError, type ApiClient } from './api-client.js';
import type { CliIo } from './cli-io.js';
import { describeRunCost, readServerSentEvents } from './follow-run.js';
import { RunPayloadReader, timelineEventOf, type TimelineEventOf } from './run-payload-reader.js';
import { readRunView, type RunView } from './run-summary.js';
import { describeTimelineEvent } from './timeline-lines.js';
import { isTerminal } from '../domain/run-outcomes.js';

export type TailOutcome = { kind: 'ended'; view: RunView } | { kind: 'waiting'; view: RunView };

const RECONNECT_DELAY_MS = 500;
/** Under the question's line, past its clock. */
const ANSWER_INDENT = ' '.repeat(12);

/** Follows the run until it ends (or waits for an answer nobody can give); returns how it stopped. */
export async function tailRun({
  client,
  runId,
  io,
  answer,
  full = false,
  maxReconnects = 20,
}: {
  client: ApiClient;
  runId: string;
  io: CliIo;
  /** The answer to the run's first open question (non-interactive); later ones are asked at the terminal. */
  answer?: string | undefined;
  full?: boolean;
  maxReconnects?: number;
}): Promise<TailOutcome> {
  const payloads = new RunPayloadReader(client, runId);
  let pendingAnswer = answer;
  let lastEventId: string | undefined;

  const ended = async (): Promise<TailOutcome> => {
    const view = await readRunView({ client, runId });
    io.print(`  ${describeRunCost(view)}`);
    if (view.deployment.live) io.print(`site: ${view.deployment.live.url}`);
    return { kind: 'ended', view };
  };

  /** Answers the question of an `input-wait` if it is still open; false when nobody can. */
  const answerQuestion = async (event: TimelineEventOf<'input-wait'>): Promise<{ answered: true } | { answered: false; view: RunView }> => {
    const view = await readRunView({ client, runId });
    // A replayed question that was answered long ago, or one another client answered meanwhile.
    if (view.status !== 'waiting_for_input' || view.question?.toolUseId !== event.tool_use_id) return { answered: true };
    const text = pendingAnswer ?? (await io.ask('answer> '));
    pendingAnswer = undefined;
    if (!text) {
      io.print(`the run waits for an answer: ${CLI} input ${runId} "<text>"  (then: ${CLI} tail ${runId})`);
      return { answered: false, view };
    }
    try {
      await client.request('POST', `/v1/runs/${runId}/input`, { text });
      io.print(`${ANSWER_INDENT}answered: ${text}`);
    } catch (error) {
      // Someone else answered first (or the run ended): the stream shows what happened next.
      if (!(error instanceof ApiClientError && (error.code === 'no_open_question' || error.code === 'run_already_ended'))) throw error;
      io.print(`${ANSWER_INDENT}(not answered: ${error.message})`);
    }
    return { answered: true };
  };

  for (let attempt = 0; attempt <= maxReconnects; attempt += 1) {
    try {
      const response = await client.fetch(`/v1/runs/${runId}/events`, {
        headers: client.headers({ accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }),
      });
      if (!response.ok || !response.body) {
        // A refusal (unknown run, bad key) will not change on a retry: it is the command's error.
        const body = (await response.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
        throw new ApiClientError(
          response.status,
          body?.error?.code ?? `http_${response.status}`,
          body?.error?.message ?? 'the event stream was refused',
          `/v1/runs/${runId}/events`,
        );
      }
      for await (const message of readServerSentEvents(response.body)) {
        if (message.id) lastEventId = message.id;
        if (message.event === 'end') return await ended();
        if (!message.data) continue;
        const event = timelineEventOf(JSON.parse(message.data));
        if (!event) throw new ApiResponseInvalidError(`the event stream sent an event the CLI cannot read: ${message.data.slice(0, 200)}`);
        const turn = event.event === 'model-call-end' ? await payloads.turn(event.step) : null;
        const toolCall = event.event === 'tool-call-end' ? await payloads.toolCall(event.tool_use_id) : null;
        for (const line of describeTimelineEvent({ event, turn, toolCall, full })) io.print(line);
        if (event.event === 'input-wait') {
          const outcome = await answerQuestion(event);
          if (!outcome.answered) return { kind: 'waiting', view: outcome.view };
        }
      }
    } catch (error) {
      if (error instanceof ApiClientError || error instanceof ApiResponseInvalidError) throw error;
      io.printError(`  (event stream interrupted: ${error instanceof Error ? error.message : String(error)}; reconnecting)`);
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_DELAY_MS));
    }
    // The stream closed without its `end`: the run may have ended while we were away.
    const view = await readRunView({ client, runId });
    if (isTerminal(view.status)) return await ended();
  }
  throw new Error(`the event stream of ${runId} kept dropping (${maxReconnects} reconnects)`);
}
