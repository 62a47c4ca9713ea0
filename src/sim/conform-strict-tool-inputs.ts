// A strict tool's `tool_use.input` always matches its schema (docs agents-and-tools/tool-use/
// strict-tool-use: "Tool `input` strictly follows the `input_schema`", by grammar-constrained
// sampling). Whatever shaped the turn — the policy, which writes the fleet's inputs, or a scenario
// that writes a non-conforming one (`invalid_tool_input`, "Without strict mode, Claude might return
// incompatible types … or missing required fields") — a complete call of a strict tool leaves here
// valid: the fields that validate are kept, unknown ones dropped, missing required ones written from
// the schema. A call cut off by max_tokens is left as it stands: the docs' own exception
// (build-with-claude/structured-outputs: a `max_tokens` stop "may not match the schema").
import { createJsonSchemaValidator } from '../parsing/index.js';
import type { StrictTool } from './parse-strict-tools.js';
import type { ResponseBlock, ResponsePlan } from './response-plan.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value of `schema`, from `candidate` where it fits. */
function conform({ schema, candidate, fits }: { schema: unknown; candidate: unknown; fits: (value: unknown, schema: unknown) => boolean }): unknown {
  if (!isRecord(schema)) return candidate;
  if (candidate !== undefined && fits(candidate, schema)) return candidate;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = isRecord(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
      const source = isRecord(candidate) ? candidate : {};
      const result: Record<string, unknown> = {};
      for (const [name, propertySchema] of Object.entries(properties)) {
        if (name in source || required.includes(name)) result[name] = conform({ schema: propertySchema, candidate: source[name], fits });
      }
      return result;
    }
    case 'array': {
      // A strict schema may keep `minItems` (0 or 1, build-with-claude/structured-outputs "JSON
      // Schema limitations"): the input has that many items, each a value of `items`.
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const kept = Array.isArray(candidate) ? candidate.filter((item) => fits(item, schema.items ?? {})) : [];
      while (kept.length < minItems) kept.push(conform({ schema: schema.items, candidate: undefined, fits }));
      return kept;
    }
    case 'string':
      return 'x'.repeat(typeof schema.minLength === 'number' ? schema.minLength : 0);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** The plan with every complete strict tool call's input made to match its schema. */
export function conformStrictToolInputs({ plan, strictTools }: { plan: ResponsePlan; strictTools: readonly StrictTool[] }): ResponsePlan {
  if (strictTools.length === 0) return plan;
  const validate = createJsonSchemaValidator([...strictTools]);
  const schemas = new Map(strictTools.map((tool) => [tool.name, tool.input_schema]));
  const fits = (value: unknown, schema: unknown) => {
    const single = createJsonSchemaValidator([
      { name: 'value', input_schema: { type: 'object', properties: { value: schema as object }, required: ['value'] } },
    ]);
    return single('value', { value }).ok;
  };
  const blocks = plan.blocks.map((block): ResponseBlock => {
    if (block.type !== 'tool_use' || block.partialJson !== undefined || !schemas.has(block.name)) return block;
    if (validate(block.name, block.input).ok) return block;
    return { ...block, input: conform({ schema: schemas.get(block.name), candidate: block.input, fits }) as Record<string, unknown> };
  });
  return { ...plan, blocks };
}
