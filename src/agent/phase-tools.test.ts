import { describe, expect, it } from 'vitest';
import type { SystemMessage, TranscriptMessage } from '../domain/model-message.js';
import { CORE_TOOLS, toolsForPhase } from '../domain/profile.js';
import { DOCUMENTED_MODEL_CAPABILITIES } from '../domain/model-capabilities.js';
import { findAgent, SITE_BUILDER } from '../agents/index.js';
import { choosePhaseToolLayout, declaredTools, phaseInstruction, phaseMessage, visibleTools } from './phase-tools.js';

const builder = findAgent(SITE_BUILDER)!;
const prompt: TranscriptMessage = { role: 'user', content: [{ type: 'text', text: 'Build a bakery site.' }] };
const answer: TranscriptMessage = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'todo_write', input: {} }] };
const results: TranscriptMessage = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] };

describe('choosePhaseToolLayout', () => {
  const withChanges = DOCUMENTED_MODEL_CAPABILITIES['claude-sonnet-5-5']!;
  const without = DOCUMENTED_MODEL_CAPABILITIES['claude-sonnet-4-6']!;

  it('declares the tools once on a first request to a model with tool changes, on an Anthropic-family provider, when enabled', () => {
    for (const providerKind of ['anthropic', 'bedrock', 'vertex'] as const) {
      expect(choosePhaseToolLayout({ messages: [], capabilities: withChanges, providerKind, enabled: true })).toBe('declared_once');
    }
    expect(choosePhaseToolLayout({ messages: [], capabilities: withChanges, providerKind: 'openai_compatible', enabled: true })).toBe('tier_per_request');
    expect(choosePhaseToolLayout({ messages: [], capabilities: withChanges, providerKind: 'anthropic', enabled: false })).toBe('tier_per_request');
    expect(choosePhaseToolLayout({ messages: [], capabilities: without, providerKind: 'anthropic', enabled: true })).toBe('tier_per_request');
  });

  it('keeps the layout a run started with, whatever the setting says now', () => {
    const declared: TranscriptMessage[] = [prompt, { role: 'system', content: 'Current phase: planning.' }, answer, results];
    expect(choosePhaseToolLayout({ messages: declared, capabilities: withChanges, providerKind: 'anthropic', enabled: false })).toBe('declared_once');
    expect(choosePhaseToolLayout({ messages: [prompt, answer, results], capabilities: withChanges, providerKind: 'anthropic', enabled: true })).toBe('tier_per_request');
  });
});

describe('declaredTools', () => {
  it('declares every tool once, loads the ones every phase offers and defers the rest — the same array every time', () => {
    const { names, definitions } = declaredTools(builder, { strict: false });
    expect(new Set(names).size).toBe(names.length);
    for (const definition of definitions) expect(definition.defer_loading === true, definition.name).toBe(!(CORE_TOOLS as readonly string[]).includes(definition.name));
    expect(JSON.stringify(declaredTools(builder, { strict: false }).definitions)).toBe(JSON.stringify(definitions));
    expect(declaredTools(builder, { strict: true }).definitions.every((definition) => definition.strict === true)).toBe(true);
  });
});

describe('phaseMessage', () => {
  it('names the phase on the first turn, with no tool change when the tier is what is loaded', () => {
    const message = phaseMessage({ agent: builder, messages: [prompt], phase: 'planning', note: null });
    expect(message).toEqual({ role: 'system', content: [{ type: 'text', text: phaseInstruction('planning') }] });
    expect(phaseMessage({ agent: builder, messages: [prompt, message!], phase: 'planning', note: null })).toBeNull();
  });

  it('adds the new tier’s tools and removes the old one’s at a phase change, so the model sees exactly the tier', () => {
    const first = phaseMessage({ agent: builder, messages: [prompt], phase: 'planning', note: null })!;
    const building = phaseMessage({ agent: builder, messages: [prompt, first, answer, results], phase: 'building', note: null })!;
    const blocks = building.content as Exclude<SystemMessage['content'], string>;
    expect(blocks[0]).toEqual({ type: 'text', text: phaseInstruction('building') });
    expect(blocks.filter((block) => block.type === 'tool_removal')).toEqual([]);
    expect(visibleTools(builder, [prompt, first, answer, results, building]).sort()).toEqual([...toolsForPhase('building')].sort());

    const verifying = phaseMessage({ agent: builder, messages: [prompt, first, answer, results, building, answer, results], phase: 'verifying', note: null })!;
    const changes = (verifying.content as Exclude<SystemMessage['content'], string>).filter((block) => block.type !== 'text');
    expect(changes.some((block) => block.type === 'tool_removal' && block.tool.name === 'write_file')).toBe(true);
    expect(changes.some((block) => block.type === 'tool_addition' && block.tool.name === 'publish')).toBe(true);
    expect(visibleTools(builder, [prompt, first, answer, results, building, answer, results, verifying]).sort()).toEqual([...toolsForPhase('verifying')].sort());
  });

  it('adds the safe-mode note once', () => {
    const first = phaseMessage({ agent: builder, messages: [prompt], phase: 'building', note: null })!;
    const noted = phaseMessage({ agent: builder, messages: [prompt, first, answer, results], phase: 'building', note: 'SAFE MODE' })!;
    expect(noted.content).toEqual([{ type: 'text', text: 'SAFE MODE' }]);
    expect(phaseMessage({ agent: builder, messages: [prompt, first, answer, results, noted, answer, results], phase: 'building', note: 'SAFE MODE' })).toBeNull();
  });
});
