// What a webhook delivery says (docs/webhooks.md#the-payload): the body the fleet signs and posts
// when a run ends or waits for input. One schema for the job that carries it (src/jobs/), the
// worker that posts it and the documentation, so a receiver can rely on every field.
import { z } from 'zod';
import { RUN_STATUSES } from './run-outcomes.js';

export const WEBHOOK_EVENTS = ['run.ended', 'run.waiting_for_input'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const webhookPayloadSchema = z.strictObject({
  id: z
    .string()
    .min(1)
    .max(300)
    .describe('The delivery’s id, the same on every attempt (and in the `buildfleet-webhook-id` header): a receiver that saw it already has nothing to do'),
  event: z
    .enum(WEBHOOK_EVENTS)
    .describe('`run.ended`: the run reached a terminal status; `run.waiting_for_input`: it asked a question (`POST /v1/runs/{id}/input` answers it)'),
  occurredAt: z.string().describe('When the run ended or parked (ISO 8601), as the run record says'),
  runId: z.string(),
  tenant: z.string(),
  status: z.enum(RUN_STATUSES).describe('The run’s status at the event'),
  error: z.object({ code: z.string(), message: z.string() }).nullable().describe('Why the run failed (docs/run-states.md), or null'),
  result: z.string().nullable().describe('The agent’s final summary when the run succeeded, or null'),
  costUsd: z.number().min(0).describe('What the run’s model calls cost, in USD'),
  question: z.string().nullable().describe('The agent’s question on `run.waiting_for_input`, else null'),
  createdAt: z.string().describe('When the run was created (ISO 8601)'),
});
export type WebhookPayload = z.infer<typeof webhookPayloadSchema>;
