// The tools a phase offers in the production layout (one tier per request).
import type { Phase } from '../domain/profile.js';
import type { Agent } from '../agents/index.js';
import { anthropicToolsOf } from '../tools/tool-definitions.js';
import type { ToolsOffered } from './turn-context.js';

const TIERS = new Map<string, ToolsOffered>();

/** The tier of the agent's phase (the production layout), built once per agent, phase and
 * strictness: every turn of every run sends the same array, so its size is measured once
 * (estimate-prompt-tokens.ts). */
export function tieredTools(agent: Agent, phase: Phase, { strict = false }: { strict?: boolean } = {}): ToolsOffered {
  const key = `${agent.fingerprint}:${phase}:${strict}`;
  let tier = TIERS.get(key);
  if (!tier) {
    const names = agent.tier(phase);
    const sources = names.map((name) => agent.tools.get(name)).filter((tool) => tool !== undefined);
    tier = { names, definitions: anthropicToolsOf(sources, { strict, cacheKey: agent.fingerprint }) };
    TIERS.set(key, tier);
  }
  return tier;
}
