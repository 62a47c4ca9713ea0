// Strict tool use (docs agents-and-tools/tool-use/strict-tool-use): `strict: true` on a custom tool
// turns on grammar-constrained sampling, so its `tool_use.input` always matches `input_schema`.
// Rules enforced with a 400, each from the docs:
// - `strict` is a boolean (SDK Tool.strict: boolean);
// - only on models with structured outputs (model-catalog.ts `strictTools`; Models API
//   `capabilities.structured_outputs`, "strict tool schemas");
// - every object schema sets `additionalProperties: false` (build-with-claude/structured-outputs,
//   "JSON Schema limitations": "additionalProperties must be set to false for objects"); the wording
//   is the API's as clients quote it ("For 'object' type, 'additionalProperties' must be explicitly
//   set to false");
// - "A request can have at most 20 strict tools" (models/sonnet-5-5/migration-guide).
import type { ModelDescription } from './model-catalog.js';

export const MAXIMUM_STRICT_TOOLS = 20;

export class StrictToolInvalid extends Error {}

export interface StrictTool {
  name: string;
  input_schema: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first path under `schema` where an object schema does not forbid additional properties. */
function openObjectPath(schema: unknown, path: string): string | null {
  if (Array.isArray(schema)) {
    for (const [index, item] of schema.entries()) {
      const found = openObjectPath(item, `${path}.${index}`);
      if (found) return found;
    }
    return null;
  }
  if (!isRecord(schema)) return null;
  const isObject = schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object'));
  if (isObject && schema.additionalProperties !== false) return path;
  for (const [key, value] of Object.entries(schema)) {
    // Property names and enum/const values are data, not schemas.
    if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') continue;
    const found = openObjectPath(value, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/** The request's strict custom tools, checked; throws StrictToolInvalid with the 400's message. */
export function parseStrictTools({ tools, model }: { tools: unknown; model: ModelDescription }): StrictTool[] {
  if (!Array.isArray(tools)) return [];
  const strict: StrictTool[] = [];
  tools.forEach((tool: unknown, index) => {
    if (!isRecord(tool) || tool.strict === undefined || tool.strict === null) return;
    if (typeof tool.strict !== 'boolean') throw new StrictToolInvalid(`tools.${index}.custom.strict: Input should be a valid boolean`);
    if (!tool.strict) return;
    if (!model.strictTools) throw new StrictToolInvalid(`tools.${index}.custom.strict: strict tool use is not supported on this model`);
    const open = openObjectPath(tool.input_schema, `tools.${index}.custom.input_schema`);
    if (open) throw new StrictToolInvalid(`${open}: For 'object' type, 'additionalProperties' must be explicitly set to false`);
    strict.push({ name: String(tool.name), input_schema: tool.input_schema as Record<string, unknown> });
  });
  if (strict.length > MAXIMUM_STRICT_TOOLS) {
    throw new StrictToolInvalid(`tools: A request can have at most ${MAXIMUM_STRICT_TOOLS} strict tools. Found ${strict.length}.`);
  }
  return strict;
}
