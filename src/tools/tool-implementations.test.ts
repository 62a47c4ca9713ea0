import { describe, expect, it } from 'vitest';
import { ALL_TOOLS, WRITE_TOOLS } from '../domain/profile.js';
import { SITE_BUILDER_TOOLS } from '../domain/site-builder-tools.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { toolDescriptions } from '../domain/tool-descriptions.js';
import { toolImplementations } from './tool-implementations.js';

describe('toolImplementations', () => {
  it('implements all 19 tools under their own names with their input schemas and descriptions', () => {
    expect(Object.keys(toolImplementations).sort()).toEqual([...ALL_TOOLS].sort());
    expect(ALL_TOOLS).toHaveLength(19);
    for (const name of ALL_TOOLS) {
      expect(toolImplementations[name].name).toBe(name);
      expect(toolImplementations[name].inputSchema).toBe(toolInputSchemas[name]);
      // What the tool worker runs is what the model was told about (tool-definitions.ts).
      expect(toolImplementations[name].description).toBe(toolDescriptions[name]);
    }
  });

  it("loads each builder tool from the file its entry names, writing exactly when its entry's effect is write", () => {
    for (const [name, entry] of Object.entries(SITE_BUILDER_TOOLS)) {
      const implementation = toolImplementations[name as keyof typeof SITE_BUILDER_TOOLS];
      expect(implementation.inputSchema, name).toBe(entry.input);
      expect(implementation.description, name).toBe(entry.description);
      expect(implementation.writes, name).toBe(entry.effect === 'write');
    }
    for (const name of ALL_TOOLS) expect(toolImplementations[name].writes, name).toBe(WRITE_TOOLS.has(name));
  });
});
