// Starting a run from a POST /v1/runs body, within the tenant's limits and once per
// Idempotency-Key: the one path of `POST /v1/runs` and `POST /v1/runs/:id/rerun`, so a rerun is
// checked, admitted, budgeted and deduplicated exactly as a new submission is.
import { DEFAULT_AGENT, findAgent, listAgents, type Agent } from '../agents/index.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';
import type { FastifyRequest } from 'fastify';
import type { FleetContext } from '../fleet/fleet-context.js';
import { readTenantLimits } from '../fleet/tenant-account.js';
import { submitRun } from '../fleet/run-commands.js';
import { newRunId, type RunRecord } from '../engine/index.js';
import { apiErrors } from './api-errors.js';
import type { CreateRunBody } from './api-schemas.js';
import { assertNever } from '../domain/assert-never.js';
import { resolveRunModelSettings, RunModelSettingsError } from '../domain/resolve-run-model-settings.js';
import { admitRun, releaseRunAdmission } from './limits/admit-run.js';
import { refuseDuringSpendLimit } from './limits/refuse-during-spend-limit.js';
import { submitRunIdempotently } from './submit-run-idempotently.js';
import { authOf, tenantOf } from './tenant-of.js';
import { admitRunBudget } from './limits/admit-run-budget.js';
import { admitRunLimits } from './limits/admit-run-limits.js';
import { checkRunWebhook, RUN_WEBHOOK_ERRORS } from './check-run-webhook.js';
import { providerNames } from '../domain/provider-declarations.js';
import type { EffortLevel } from '../domain/model-catalog.js';

/** The errors startRunFromBody can answer, for the routes' documentation. */
export const START_RUN_ERRORS = [
  'unknown_agent',
  'agent_input_invalid',
  'prompt_too_large',
  'idempotency_key_conflict',
  'idempotency_key_in_progress',
  'unknown_model',
  'thinking_not_supported',
  'thinking_budget_too_large',
  'thinking_budget_not_supported',
  'thinking_always_on',
  'effort_not_supported',
  'effort_requires_thinking',
  'rate_limited',
  'too_many_active_runs',
  'model_spend_limit_reached',
  'tenant_spend_limit_reached',
  'budget_above_tenant_maximum',
  'max_turns_above_tenant_maximum',
  'model_not_allowed',
  'unknown_provider',
  'provider_not_allowed',
  'run_option_requires_admin',
  ...RUN_WEBHOOK_ERRORS,
] as const;

/** Length in Unicode code points, so an emoji counts once, as a person would count it. */
function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

/** Throws the API error of a model or thinking choice the fleet refuses. */
function checkModelSettings(fleet: FleetContext, body: CreateRunBody, model: string | undefined, tenantDefaultEffort: EffortLevel | null): void {
  try {
    resolveRunModelSettings({
      config: fleet.config,
      model,
      thinking: body.thinking,
      tenantDefaultEffort,
      describe: (name) => fleet.modelDescriptions.describe(name),
    });
  } catch (error) {
    if (!(error instanceof RunModelSettingsError)) throw error;
    switch (error.code) {
      case 'unknown_model':
        throw apiErrors.unknownModel(error.message);
      case 'model_retired':
        throw apiErrors.modelRetired(error.message);
      case 'thinking_not_supported':
        throw apiErrors.thinkingNotSupported(error.message);
      case 'thinking_budget_too_large':
        throw apiErrors.thinkingBudgetTooLarge(error.message);
      case 'thinking_budget_not_supported':
        throw apiErrors.thinkingBudgetNotSupported(error.message);
      case 'thinking_always_on':
        throw apiErrors.thinkingAlwaysOn(error.message);
      case 'effort_not_supported':
        throw apiErrors.effortNotSupported(error.message);
      case 'effort_requires_thinking':
        throw apiErrors.effortRequiresThinking(error.message);
      default:
        return assertNever(error.code);
    }
  }
}

/**
 * Checks `body` and starts its run for `tenant` (the request's own unless named) within that
 * tenant's limits (admission, budgets, the spend-limit flag), once per Idempotency-Key header and
 * `idempotencyBody` (what a replay must match: the body, or for a rerun the body with the run it
 * reruns). The Idempotency-Key is the caller's, so it is scoped by the request's tenant whichever
 * tenant the run is for. `rerunOf` links the new run to the one it reruns.
 */
/** The body's agent and the run's first message: `input` (or `prompt`, standing for
 * `input: {prompt}`) through the agent's input schema. */
function runInputOf(body: CreateRunBody): { agent: Agent; prompt: string; input: Record<string, unknown> } {
  const name = body.agent ?? DEFAULT_AGENT;
  const agent = findAgent(name);
  if (!agent) {
    throw apiErrors.unknownAgent(
      `The fleet runs no agent ${JSON.stringify(name)}. Agents: ${listAgents()
        .map((known) => known.name)
        .join(', ')}.`,
    );
  }
  const input = body.input ?? { prompt: body.prompt };
  const parsed = agent.parseInput(input);
  if (!parsed.ok) {
    throw apiErrors.agentInputInvalid(
      `The input does not match agent ${agent.name}'s input schema: ${formatZodIssues({ issues: parsed.issues, whole: '(input)' })}`,
    );
  }
  return { agent, prompt: parsed.firstMessage, input };
}

export async function startRunFromBody({
  fleet,
  request,
  body,
  tenant = tenantOf(request),
  rerunOf = null,
  idempotencyBody = body,
}: {
  fleet: FleetContext;
  request: FastifyRequest;
  body: CreateRunBody;
  /** The tenant the run is created for: an admin's rerun of another tenant's run keeps that tenant. */
  tenant?: string;
  rerunOf?: string | null;
  idempotencyBody?: unknown;
}): Promise<{ run: RunRecord; replayed: boolean }> {
  const { agent, prompt, input } = runInputOf(body);
  const maxPromptChars = fleet.config.BUILDFLEET_MAX_PROMPT_CHARS;
  const promptLength = codePointLength(prompt);
  if (promptLength > maxPromptChars) {
    throw apiErrors.promptTooLarge(`The prompt has ${promptLength} characters; at most ${maxPromptChars} are allowed.`);
  }
  // Only a request that really creates a run is checked and admitted (and counted): a replay
  // of an Idempotency-Key returns its run without reaching this, so a later change of the
  // capability table cannot turn the replay of a run already created into a 400.
  const submit = async () => {
    const auth = authOf(request);
    // The tenant's policy and standing, read once: run limits, budgets and the active-run cap.
    const now = new Date();
    const limits = await readTenantLimits({ fleet, tenant, now });
    // A provider the fleet does not have is the caller's mistake whatever the tenant's policy.
    if (body.provider !== undefined && !providerNames(fleet.config.BUILDFLEET_PROVIDERS).includes(body.provider)) {
      throw apiErrors.unknownProvider(
        `The fleet has no provider ${JSON.stringify(body.provider)}. Providers: ${providerNames(fleet.config.BUILDFLEET_PROVIDERS).join(', ')}.`,
      );
    }
    // The agent's defaults stand where the request names nothing, within the tenant's limits.
    const defaults = agent.definition.defaults ?? {};
    const { maxTurns, model, provider } = admitRunLimits({
      policy: limits.policy,
      auth,
      requested: { ...body, maxTurns: body.maxTurns ?? defaults.maxTurns, model: body.model ?? defaults.model },
      fleetModel: fleet.config.BUILDFLEET_MODEL,
      fleetProvider: fleet.config.BUILDFLEET_PROVIDER,
    });
    // Refused before admission, so a run the model cannot take uses no slot (submitRun checks
    // again); a refusal releases the Idempotency-Key for a corrected retry.
    checkModelSettings(fleet, body, model, limits.policy.defaultEffort);
    const webhook = await checkRunWebhook({ fleet, webhook: body.webhook });
    const runId = newRunId();
    await refuseDuringSpendLimit({ fleet });
    const budget = admitRunBudget({ limits, auth, now, requested: { budgetUsd: body.options?.budgetUsd, tokenBudget: body.options?.tokenBudget } });
    await admitRun({ fleet, tenant, runId, maxActiveRuns: limits.policy.maxConcurrentRuns });
    try {
      return await submitRun(fleet, {
        tenant,
        runId,
        prompt,
        agent: agent.name,
        input,
        model,
        provider,
        maxTurns,
        options: body.options,
        thinking: body.thinking,
        tenantDefaultEffort: limits.policy.defaultEffort,
        budget,
        rerunOf,
        webhook,
      });
    } catch (error) {
      // A run created whose first turn was not enqueued was ended by submitRun (enqueue_failed),
      // so neither the reaper nor a retry under the released Idempotency-Key can start it twice.
      await releaseRunAdmission({ fleet, tenant, runId }).catch(() => undefined);
      throw error;
    }
  };
  const idempotencyKey = (request.headers as Record<string, string | undefined>)['idempotency-key'];
  return idempotencyKey
    ? submitRunIdempotently({ fleet, tenant: tenantOf(request), idempotencyKey, body: idempotencyBody, submit })
    : { run: await submit(), replayed: false };
}
