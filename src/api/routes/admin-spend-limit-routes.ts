// GET /v1/admin/spend-limit and POST /v1/admin/spend-limit/clear: the operator's view and reset
// of the spend-limit pause (src/model/spend-limit-flag.ts) that stops POST /v1/runs while the
// model account's spend limit is reached.
import { z } from 'zod';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { SpendLimitFlagStore, type SpendLimitState } from '../../model/spend-limit-flag.js';
import { defineRoute } from '../define-route.js';

export const spendLimitStateSchema = z
  .object({
    paused: z.boolean().describe('Whether new runs are refused with `model_spend_limit_reached`'),
    key_id: z.string().describe('Short non-secret id of the model credential the pause belongs to'),
    message: z.string().nullable().describe('The model API’s answer that raised the pause'),
    model: z.string().nullable(),
    run_id: z.string().nullable().describe('The run whose call met the limit'),
    request_id: z.string().nullable().describe('The model API’s request-id of that call'),
    set_at: z.string().nullable(),
    expires_at: z.string().nullable().describe('When the pause lifts by itself (`BUILDFLEET_SPEND_LIMIT_PAUSE_MS` after it was set)'),
  })
  .describe('The spend-limit pause of new runs');

const clearedSchema = spendLimitStateSchema.extend({ cleared: z.boolean().describe('Whether a pause was in force and is now lifted') });

function view(state: SpendLimitState): z.infer<typeof spendLimitStateSchema> {
  const flag = state.flag;
  return {
    paused: flag !== null,
    key_id: state.keyId,
    message: flag?.message ?? null,
    model: flag?.model ?? null,
    run_id: flag?.runId ?? null,
    request_id: flag?.requestId ?? null,
    set_at: flag?.setAt ?? null,
    expires_at: flag?.expiresAt ?? null,
  };
}

export function adminSpendLimitRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/admin/spend-limit',
    operationId: 'getSpendLimitPause',
    summary: 'Spend-limit pause',
    description:
      'Whether new runs are paused because a model call met the model account’s ' +
      'spend limit, with the API’s message, the run and request-id that met ' +
      'it, and when the pause lifts by itself. Needs the `admin` scope.',
    tags: ['admin'],
    access: 'admin',
    responses: { 200: { description: 'The spend-limit pause', schema: spendLimitStateSchema } },
    errors: [],
    async handler() {
      return view(await new SpendLimitFlagStore(fleet.redis, fleet.config).get());
    },
  });
}

export function adminClearSpendLimitRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'POST',
    url: '/v1/admin/spend-limit/clear',
    operationId: 'clearSpendLimitPause',
    summary: 'Lift the spend-limit pause',
    description:
      'Lifts the spend-limit pause at once, after the limit was raised (Console ' +
      '→ Limits): POST /v1/runs admits runs again. If the limit is still reached, ' +
      'the next model call raises the pause again. Needs the `admin` scope.',
    tags: ['admin'],
    access: 'admin',
    responses: { 200: { description: 'The pause after clearing (`paused: false`) and whether one was lifted', schema: clearedSchema } },
    errors: [],
    async handler(request) {
      const store = new SpendLimitFlagStore(fleet.redis, fleet.config);
      const before = await store.get();
      const cleared = await store.clear();
      request.log.warn(
        { event: 'spend-limit-clear', cleared, key_id: store.keyId, message: before.flag?.message ?? null },
        'spend-limit pause cleared by an operator',
      );
      return { ...view(await store.get()), cleared };
    },
  });
}
