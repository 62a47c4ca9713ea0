// Reads a run's turns, tool calls and events through the API for the CLI's timelines, validated
// against the API's own schemas. `logs` reads everything once; `tail` asks for one turn or one
// tool call as its event arrives, and only the entries it has not seen settled are read again.
import { z } from 'zod';
import { storedEventSchema } from '../api/api-schemas.js';
import { toolCallPageSchema, turnPageSchema, MAX_PAYLOAD_PAGE, type toolCallViewSchema, type turnSummarySchema } from '../api/run-payload-schemas.js';
import type { ApiClient } from './api-client.js';
import { hasRunEventKeys, type RunEvent, type RunEventName } from '../domain/run-events.js';

export type TurnSummary = z.infer<typeof turnSummarySchema>;
export type ToolCallView = z.infer<typeof toolCallViewSchema>;
/** One event as the API serves it: the run's event union with its stream id and time. */
export type TimelineEvent = RunEvent & { id: string; at: string };
/** The timeline's event of one name, its fields typed. */
export type TimelineEventOf<Name extends RunEventName> = Extract<TimelineEvent, { event: Name }>;

/** An event the API sent, or null: storedEventSchema checks its envelope and name, hasRunEventKeys
 * the fields the timeline keys on (a call's tool_use_id, run-end's status); the rest is typed on the
 * fleet's word (the emitters write what RunEvent declares). */
export function timelineEventOf(value: unknown): TimelineEvent | null {
  const parsed = storedEventSchema.safeParse(value);
  return parsed.success && hasRunEventKeys(parsed.data) ? (parsed.data as TimelineEvent) : null;
}

export class RunPayloadReader {
  private readonly turns = new Map<number, TurnSummary>();
  private readonly toolCalls = new Map<string, ToolCallView>();
  /** Every tool call at or before this position has its result: none of them is read again. */
  private settledPosition = -1;

  constructor(
    private readonly client: ApiClient,
    private readonly runId: string,
  ) {}

  /** The run's events so far, oldest first (GET /v1/runs/:id/events as JSON). */
  async events(): Promise<TimelineEvent[]> {
    const response = await this.client.request<unknown>('GET', `/v1/runs/${this.runId}/events`, undefined, { accept: 'application/json' });
    if (!Array.isArray(response)) throw new Error(`GET /v1/runs/${this.runId}/events answered events the CLI cannot read: not a list`);
    const events: TimelineEvent[] = [];
    for (const [index, value] of response.entries()) {
      const event = timelineEventOf(value);
      if (!event) throw new Error(`GET /v1/runs/${this.runId}/events answered events the CLI cannot read: event ${index} does not decode`);
      events.push(event);
    }
    return events;
  }

  /** Reads every turn and tool call the run has now. */
  async readAll(): Promise<void> {
    let after = -1;
    for (;;) {
      const page = await this.client.requestValid({ path: `/v1/runs/${this.runId}/turns?after=${after}&limit=${MAX_PAYLOAD_PAGE}`, schema: turnPageSchema });
      for (const turn of page.turns) this.turns.set(turn.step, turn);
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
    await this.readUnsettledToolCalls();
  }

  /** The turn of `step`, or null when the API holds none (yet). */
  async turn(step: number): Promise<TurnSummary | null> {
    const known = this.turns.get(step);
    if (known) return known;
    const page = await this.client.requestValid({ path: `/v1/runs/${this.runId}/turns?after=${step - 1}&limit=1`, schema: turnPageSchema });
    const turn = page.turns.find((candidate) => candidate.step === step) ?? null;
    if (turn) this.turns.set(step, turn);
    return turn;
  }

  /** The tool call of `toolUseId` as the API has it now; null when it has none. */
  async toolCall(toolUseId: string, { refresh = true }: { refresh?: boolean } = {}): Promise<ToolCallView | null> {
    const known = this.toolCalls.get(toolUseId);
    if ((known && known.status !== 'unanswered') || !refresh) return known ?? null;
    await this.readUnsettledToolCalls();
    return this.toolCalls.get(toolUseId) ?? null;
  }

  /** The tool calls read so far, by tool_use id. */
  knownToolCall(toolUseId: string): ToolCallView | null {
    return this.toolCalls.get(toolUseId) ?? null;
  }

  private async readUnsettledToolCalls(): Promise<void> {
    let after = this.settledPosition;
    for (;;) {
      const page = await this.client.requestValid({
        path: `/v1/runs/${this.runId}/tool-calls?after=${after}&limit=${MAX_PAYLOAD_PAGE}`,
        schema: toolCallPageSchema,
      });
      for (const call of page.toolCalls) {
        this.toolCalls.set(call.toolUseId, call);
        if (call.position === this.settledPosition + 1 && call.status !== 'unanswered') this.settledPosition = call.position;
      }
      if (page.nextAfter === null) return;
      after = page.nextAfter;
    }
  }
}
