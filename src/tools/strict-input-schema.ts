// A tool's input schema in the form strict tool use accepts (docs agents-and-tools/tool-use/
// strict-tool-use: `strict: true` makes the tool's `input` always match `input_schema`; schemas
// go through the structured-outputs JSON Schema subset, build-with-claude/structured-outputs,
// "JSON Schema limitations"): every object closed with `additionalProperties: false`, and the
// keywords the grammar cannot hold — string lengths and patterns, numeric bounds, array sizes
// other than `minItems` 0 or 1 — taken out of the schema and written into its description
// instead, the way the SDKs' own helpers transform a schema. The fleet still checks every one of
// them (src/domain/tool-input-schemas.ts, src/agent/reject-call.ts): strict guarantees the shape,
// the fleet's validator the bounds.
import { STRICT_UNSUPPORTED_KEYWORDS } from '../domain/strict-schema-keywords.js';

/** "A request can have at most 20 strict tools" (strict-tool-use, limits). */
export const MAXIMUM_STRICT_TOOLS = 20;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema, rewritten for strict tool use; the input is not modified. */
export function strictInputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const moved: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    if ((STRICT_UNSUPPORTED_KEYWORDS as readonly string[]).includes(keyword)) {
      moved.push(`${keyword} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
    } else if (keyword === 'minItems' && typeof value === 'number' && value > 1) {
      moved.push(`minItems ${value}`);
    } else if (keyword === 'properties' && isRecord(value)) {
      result.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, isRecord(property) ? strictInputSchema(property) : property]),
      );
    } else if ((keyword === 'items' || keyword === 'additionalProperties') && isRecord(value)) {
      result[keyword] = strictInputSchema(value);
    } else if ((keyword === 'anyOf' || keyword === 'allOf') && Array.isArray(value)) {
      result[keyword] = value.map((branch) => (isRecord(branch) ? strictInputSchema(branch) : branch));
    } else {
      result[keyword] = value;
    }
  }
  if (result.type === 'object') result.additionalProperties = false;
  if (moved.length > 0) {
    const description = typeof result.description === 'string' ? `${result.description} ` : '';
    result.description = `${description}(${moved.join(', ')})`;
  }
  return result;
}
