// Step 3a of a model turn (run-model-turn.ts): what the call sends — tools, system prompt,
// tool_choice, thinking — and what it may cost: the prompt's estimated tokens and the call's
// max_tokens, capped to the context window. max_tokens is the run's: raised by a truncation, it
// stays raised.
import type { ToolChoice } from '../domain/tool-choice.js';
import { buildThinkingRequest } from '../domain/thinking-request.js';
import { capMaxTokensToContextWindow } from '../model/cap-max-tokens-to-context-window.js';
import { estimatePromptTokens, promptCharacters } from '../model/estimate-prompt-tokens.js';
import { MAXIMUM_STRICT_TOOLS } from '../tools/tool-definitions.js';
import { declaredTools } from './phase-tools.js';
import { chooseToolChoice } from './tool-choice-policy.js';
import { choosePromptCacheTtl } from './prompt-cache-ttl.js';
import { tieredTools } from './tiered-tools.js';
import type { ToolsOffered, TurnContext } from './turn-context.js';

/** Providers whose requests may carry `strict: true`: the Claude API and Vertex. Bedrock offers
 * structured outputs for some models only (not Sonnet 5.5 nor Haiku 5.5: their migration guides),
 * a per-platform fact the catalog does not hold, so it gets none; an OpenAI-compatible server has
 * no such field for the fleet to rely on. */
const STRICT_TOOL_PROVIDERS: ReadonlySet<string> = new Set(['anthropic', 'vertex']);

export interface TurnRequest {
  /** The run's max_tokens; the call sends callMaxTokens. */
  maxTokens: number;
  callMaxTokens: number;
  thinkingRequest: ReturnType<typeof buildThinkingRequest>;
  strict: boolean;
  tools: ToolsOffered;
  system: string;
  toolChoice: ToolChoice;
  measuredRatio: number | null;
  estimatedPromptTokens: number;
  cacheTtl: ReturnType<typeof choosePromptCacheTtl>;
}

/** Builds the turn's request and estimates its prompt (calibrating the estimate now and then). */
export async function buildTurnRequest({ context }: { context: TurnContext }): Promise<TurnRequest> {
  const { deps, run, runId, turn, provider, capabilities, layout, phase, messages, agent } = context;
  const maxTokens = run.maxTokens;
  const thinkingRequest = buildThinkingRequest({ settings: run, capabilities });
  const thinking = thinkingRequest.thinking;
  // "A request can have at most 20 strict tools": an agent whose request carries more (every tool
  // declared at once, or a tier its largeTiers allows) is sent without strict tool use.
  const offered = layout === 'declared_once' ? agent.everyTool.length : agent.tier(phase).length;
  const strict = deps.config.BUILDFLEET_STRICT_TOOLS && capabilities.strictTools && STRICT_TOOL_PROVIDERS.has(provider.kind) && offered <= MAXIMUM_STRICT_TOOLS;
  // The calls allowed stay the phase's tier in every layout; a declared_once request shows every
  // tool, the tier surfaced by the transcript's tool changes, and a system prompt without the phase.
  const tools: ToolsOffered = deps.toolsFor
    ? deps.toolsFor(phase, run)
    : layout === 'declared_once'
      ? { names: agent.tier(phase), definitions: declaredTools(agent, { strict }).definitions }
      : tieredTools(agent, phase, { strict });
  const system = agent.systemPrompt(layout === 'declared_once' ? { phase: null } : { phase, note: context.safeModeNote });
  const toolChoice = chooseToolChoice({ planDue: agent.planFirst && phase === agent.initialPhase && run.todos.length === 0, mayForce: context.mayForce });
  const promptParts = {
    system,
    tools: tools.definitions,
    messages,
    // The stored messages' lengths plus the array's brackets and commas.
    messagesCharacters: context.transcriptCharacters + Math.max(1, messages.length) + 1,
  };
  // The prompt's tokens in the model's tokenizer (the newer one makes ~30% more of the same text),
  // calibrated with the provider's count_tokens on the first call of the model in this worker and
  // now and then after (token-calibration.ts says why not before every call); a count that fails
  // leaves the documented ratio and never fails the turn. Budgets, the admission reservation and
  // the context-window cap all take this one estimate.
  const countTokens = provider.countTokens?.bind(provider);
  const measuredRatio = deps.tokenCalibration
    ? await deps.tokenCalibration.ratio({
        provider: provider.name,
        model: run.model,
        characters: promptCharacters(promptParts),
        count: countTokens
          ? () =>
              countTokens({
                model: run.model,
                system,
                messages,
                tools: tools.definitions,
                toolChoice,
                ...(thinking ? { thinking } : {}),
                ...(thinkingRequest.outputConfig ? { outputConfig: thinkingRequest.outputConfig } : {}),
                betas: thinkingRequest.betas,
              })
          : null,
        onFailure: (error) =>
          deps.logger.warn(
            { run_id: runId, step: turn, model: run.model, err: error instanceof Error ? error.message : String(error) },
            'token count for calibration failed',
          ),
      })
    : null;
  const estimatedPromptTokens = estimatePromptTokens({ ...promptParts, tokenizer: capabilities.tokenizer, measuredRatio });
  // This call's max_tokens: the run's, lowered so the prompt plus max_tokens fits the context
  // window (the run keeps its own for the next call; cap-max-tokens-to-context-window.ts).
  const callMaxTokens = capMaxTokensToContextWindow({
    maxTokens,
    contextWindowTokens: capabilities.contextWindowTokens,
    estimatedPromptTokens,
    thinkingBudgetTokens: run.thinkingBudgetTokens,
  });
  const cacheTtl = choosePromptCacheTtl({ offeredTools: tools.names, waitingTtl: deps.config.BUILDFLEET_PROMPT_CACHE_TTL_WAITING });
  return { maxTokens, callMaxTokens, thinkingRequest, strict, tools, system, toolChoice, measuredRatio, estimatedPromptTokens, cacheTtl };
}
