// A tool's zod input schema as the JSON Schema a Messages API request carries in `input_schema`:
// generated (so the two never drift), without the `$schema` dialect, and an object schema (the
// API's input_schema is one). One home for the agents' compiler (src/agents/compile-agent.ts) and
// the builder's catalog (src/tools/tool-definitions.ts).
import { z } from 'zod';

export class InputSchemaNotAnObject extends Error {}

/** Throws InputSchemaNotAnObject (or zod's error for a schema with no JSON Schema form). */
export function inputJsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...generated } = z.toJSONSchema(schema) as Record<string, unknown>;
  if (generated.type !== 'object') throw new InputSchemaNotAnObject("the input schema must be an object schema (the Messages API's input_schema is one)");
  return generated;
}
