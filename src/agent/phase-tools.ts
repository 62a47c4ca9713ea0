// How a run's model sees the tools of its phase. Two layouts:
//
// - `tier_per_request` (every model without mid-conversation tool changes, and every provider
//   that cannot carry them): each request's top-level `tools` is the phase's tier and the system
//   prompt names the phase. A phase change rewrites the start of the prompt, so the whole cached
//   prefix is written again (docs/prompt-caching.md: a third of a build's cached input cost).
//
// - `declared_once` (models whose catalog entry has midConversationSystemMessages and
//   midConversationToolChanges, on the Claude API, Bedrock and Vertex): every tool the agent can
//   use is declared in `tools` from the first request and `tools` and `system` never change again;
//   the phase travels in the transcript as a mid-conversation system message (docs
//   build-with-claude/mid-conversation-system-messages) appended right after the turn's user
//   message, carrying the phase's instructions and the `tool_addition` / `tool_removal` blocks that
//   turn the model's visible tools into the new tier. Appending keeps the cached prefix — the
//   point of the feature — and on the models whose thinking blocks are bound to the conversation
//   prefix (Claude 5.5), an unchanged `system` and `tools` is what keeps earlier thinking valid.
//
// Why `defer_loading` rather than a `tool_removal` at the start: a tool declared with
// `defer_loading: true` stays withheld until a `tool_addition` surfaces it (same page), so the
// tools array states the starting layout by itself — the tools in every phase's tier are loaded,
// the others deferred — and is the same bytes for every run and every phase of the agent, so runs
// share its cache entry. A removal at the start would need a system message before the model's
// first answer for every run and renders every tool's definition into the prefix first; the
// deferred ones are rendered only where a tool_addition surfaces them.
//
// The layout of a run is fixed by its first request and read back from its transcript: a run whose
// transcript holds a system message is a declared_once run (its first turn wrote one), so a
// setting changed while runs are in flight never sends a stored tool change without the tools it
// refers to. What the fleet allows is unchanged either way: the tier of the phase
// (the agent's tier, src/agents/compile-agent.ts) is what reject-call.ts and the finish gate hold
// calls to, whatever the model was shown. Every function here takes the run's agent: its phases
// and tools are the agent's.
import type { Phase } from '../domain/profile.js';
import type { Agent } from '../agents/index.js';
import { isToolChange, type SystemBlock, type SystemMessage, type TranscriptMessage } from '../domain/model-message.js';
import type { ModelCapabilities } from '../domain/model-capabilities.js';
import type { ProviderKind } from '../domain/provider-declarations.js';
import { anthropicToolsOf, type AnthropicTool } from '../tools/tool-definitions.js';

export type PhaseToolLayout = 'tier_per_request' | 'declared_once';

/** The beta header a request with tool changes (and deferred tools) carries. */
export const TOOL_CHANGES_BETA = 'mid-conversation-tool-changes-2026-07-01';

/** Providers whose wire format carries system messages and tool changes: the Anthropic family
 * (the docs list the Claude API, Bedrock and Google Cloud). An OpenAI-compatible server has no
 * tool changes, and open models' chat templates commonly refuse a system message after the first,
 * so its runs keep the tier per request. */
const TOOL_CHANGE_PROVIDERS: ReadonlySet<ProviderKind> = new Set<ProviderKind>(['anthropic', 'bedrock', 'vertex']);

/** The layout of this turn's request: the run's, once its transcript shows it; for its first
 * request, the model's capabilities, the provider and the fleet's setting decide. */
export function choosePhaseToolLayout({
  messages,
  capabilities,
  providerKind,
  enabled,
}: {
  /** The stored transcript before this turn's input. */
  messages: readonly TranscriptMessage[];
  capabilities: Pick<ModelCapabilities, 'midConversationSystemMessages' | 'midConversationToolChanges'>;
  providerKind: ProviderKind;
  /** BUILDFLEET_PHASE_TOOL_CHANGES. */
  enabled: boolean;
}): PhaseToolLayout {
  if (messages.some((message) => message.role === 'system')) return 'declared_once';
  // A run that already asked without one started with the tier per request, and keeps it.
  if (messages.some((message) => message.role === 'assistant')) return 'tier_per_request';
  const supported = capabilities.midConversationSystemMessages && capabilities.midConversationToolChanges && TOOL_CHANGE_PROVIDERS.has(providerKind);
  return enabled && supported ? 'declared_once' : 'tier_per_request';
}

interface DeclaredLayout {
  /** Tools every phase offers: loaded from the first request, never added or removed. */
  alwaysVisible: readonly string[];
  /** The others: declared with defer_loading. */
  deferred: ReadonlySet<string>;
}

const LAYOUTS = new WeakMap<Agent, DeclaredLayout>();

function declaredLayoutOf(agent: Agent): DeclaredLayout {
  let layout = LAYOUTS.get(agent);
  if (!layout) {
    const alwaysVisible = agent.phases.map((phase) => agent.tier(phase)).reduce((common, tier) => common.filter((name) => tier.includes(name)));
    layout = { alwaysVisible, deferred: new Set(agent.everyTool.filter((name) => !alwaysVisible.includes(name))) };
    LAYOUTS.set(agent, layout);
  }
  return layout;
}

const DECLARED = new WeakMap<Agent, Map<boolean, AnthropicTool[]>>();

/** The tools array of a declared_once run: the same for every turn of every such run of the agent,
 * so built once per agent and strictness. */
export function declaredTools(agent: Agent, { strict }: { strict: boolean }): { names: readonly string[]; definitions: AnthropicTool[] } {
  let byStrictness = DECLARED.get(agent);
  if (!byStrictness) DECLARED.set(agent, (byStrictness = new Map()));
  let definitions = byStrictness.get(strict);
  if (!definitions) {
    const sources = agent.everyTool.map((name) => agent.tools.get(name)).filter((tool) => tool !== undefined);
    definitions = anthropicToolsOf(sources, { strict, deferred: declaredLayoutOf(agent).deferred, cacheKey: agent.fingerprint });
    byStrictness.set(strict, definitions);
  }
  return { names: agent.everyTool, definitions };
}

/** The tools the model sees at the end of the transcript: the loaded ones, then each system
 * message's additions and removals in order. */
export function visibleTools(agent: Agent, messages: readonly TranscriptMessage[]): string[] {
  const visible = new Set<string>(declaredLayoutOf(agent).alwaysVisible);
  for (const message of messages) {
    if (message.role !== 'system' || typeof message.content === 'string') continue;
    for (const block of message.content) {
      if (!isToolChange(block)) continue;
      if (block.type === 'tool_addition') visible.add(block.tool.name);
      else visible.delete(block.tool.name);
    }
  }
  return [...visible];
}

function textsOf(messages: readonly TranscriptMessage[]): string[] {
  return messages.flatMap((message) => {
    if (message.role !== 'system') return [];
    if (typeof message.content === 'string') return [message.content];
    return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  });
}

/** The instruction that names the phase: what the system prompt says per phase in the other layout,
 * then the agent's instructions for the phase, if it has any. */
export function phaseInstruction(phase: Phase, agent?: Agent): string {
  const instructions = agent?.instructionsOf(phase);
  return `Current phase: ${phase}. From now on you can call the tools of this phase only.${instructions ? `\n${instructions}` : ''}`;
}

/**
 * The system message this turn appends after its user message, or null when the model already sees
 * the phase's tools and instructions: on the run's first turn (the phase named, its tier loaded),
 * at a phase change (the tier's additions and removals, the new phase named), and once when the run
 * enters safe mode (its note). `messages` is the transcript including this turn's user message.
 */
export function phaseMessage({
  agent,
  messages,
  phase,
  note,
}: {
  agent: Agent;
  messages: readonly TranscriptMessage[];
  phase: Phase;
  note: string | null;
}): SystemMessage | null {
  const tier = agent.tier(phase);
  const visible = visibleTools(agent, messages);
  const changes: SystemBlock[] = [
    ...visible.filter((name) => !tier.includes(name)).map((name): SystemBlock => ({ type: 'tool_removal', tool: { type: 'tool_reference', name } })),
    ...tier.filter((name) => !visible.includes(name)).map((name): SystemBlock => ({ type: 'tool_addition', tool: { type: 'tool_reference', name } })),
  ];
  const texts = textsOf(messages);
  const namePhase = changes.length > 0 || texts.length === 0;
  const lines = [...(namePhase ? [phaseInstruction(phase, agent)] : []), ...(note !== null && !texts.includes(note) ? [note] : [])];
  if (changes.length === 0 && lines.length === 0) return null;
  return { role: 'system', content: [...lines.map((text): SystemBlock => ({ type: 'text', text })), ...changes] };
}
