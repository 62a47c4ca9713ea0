import { describe, expect, it } from 'vitest';
import { ALL_TOOLS, MAX_TOOLS_PER_REQUEST, PHASES, toolsForPhase } from '../domain/profile.js';
import { allAnthropicTools, anthropicToolsFor } from './tool-definitions.js';
import { toolDescriptions } from '../domain/tool-descriptions.js';

describe('toolDescriptions', () => {
  it('describes every tool in more than a few words', () => {
    expect(Object.keys(toolDescriptions).sort()).toEqual([...ALL_TOOLS].sort());
    for (const name of ALL_TOOLS) expect(toolDescriptions[name].length, name).toBeGreaterThan(40);
  });
});

describe('anthropicToolsFor', () => {
  it('builds JSON Schemas without $schema, strict and object-typed', () => {
    for (const tool of allAnthropicTools()) {
      expect(tool.input_schema.type).toBe('object');
      expect(tool.input_schema).not.toHaveProperty('$schema');
      expect(tool.input_schema.additionalProperties).toBe(false);
      // Input streams as generated, so a long page shows progress while it is written.
      expect(tool.eager_input_streaming).toBe(true);
    }
    const [writeFile] = anthropicToolsFor(['write_file']);
    expect(writeFile?.input_schema.required).toEqual(['path', 'content']);
    expect(writeFile?.description).toBe(toolDescriptions.write_file);
  });

  it('returns the same cached, frozen objects on every call', () => {
    const first = anthropicToolsFor(['deploy', 'publish']);
    const second = anthropicToolsFor(['publish', 'deploy']);
    expect(second[0]).toBe(first[1]);
    expect(second[1]).toBe(first[0]);
    expect(Object.isFrozen(first[0]?.input_schema)).toBe(true);
  });

  it('never exceeds the per-request tool limit for any phase', () => {
    for (const phase of PHASES) expect(anthropicToolsFor(toolsForPhase(phase)).length).toBeLessThanOrEqual(MAX_TOOLS_PER_REQUEST);
  });
});
