// The tools a phase offers in the production layout (one tier per request).
import { toolsForPhase, type Phase } from '../domain/profile.js';
import { anthropicToolsFor } from '../tools/tool-definitions.js';
import type { ToolsOffered } from './turn-context.js';

const TIERS = new Map<string, ToolsOffered>();

/** The tier of the phase (the production layout), built once per phase and strictness: every turn
 * of every run sends the same array, so its size is measured once (estimate-prompt-tokens.ts). */
export function tieredTools(phase: Phase, { strict = false }: { strict?: boolean } = {}): ToolsOffered {
  const key = `${phase}:${strict}`;
  let tier = TIERS.get(key);
  if (!tier) {
    const names = toolsForPhase(phase);
    tier = { names, definitions: anthropicToolsFor(names, { strict }) };
    TIERS.set(key, tier);
  }
  return tier;
}
