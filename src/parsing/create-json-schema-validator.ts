// Strict argument validation against JSON Schema (the Anthropic `input_schema`), with ajv set so
// it never changes the data: no type coercion, no defaults filled in, no additional properties
// removed. Unknown fields are refused exactly when the schema says (additionalProperties: false).
// Schema-authoring strictness is on too: an unknown keyword (a typo like `requried`) or an
// unknown format is an error when the validator is created, not a silently ignored rule.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isPlainObject } from './is-plain-object.js';
import { schemaInvalidReason, unknownToolReason } from './parse-reasons.js';
import type { ArgumentValidator } from './parse-types.js';

export interface JsonSchemaTool {
  name: string;
  input_schema: object;
}

const AJV_OPTIONS: Options = {
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  allErrors: false,
  strictSchema: true,
  strictNumbers: true,
  // Type and `required` lint would reject common, valid tool schemas; they do not loosen checks.
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  logger: false,
};

/** Throws when a tool has no name, a duplicate name, or a schema ajv cannot compile. */
export function createJsonSchemaValidator(tools: Array<{ name: string; input_schema: object }>): ArgumentValidator {
  // zod 4 emits draft 2020-12 schemas (with $schema); hand-written tool schemas are usually
  // draft-07. Each gets the ajv class of its draft.
  let draft07: Ajv | null = null;
  let draft2020: Ajv2020 | null = null;
  const validators = new Map<string, ValidateFunction>();

  for (const tool of tools) {
    if (typeof tool.name !== 'string' || tool.name === '') throw new Error('a tool has no name');
    if (validators.has(tool.name)) throw new Error(`tool "${tool.name}" is defined twice`);
    if (!isPlainObject(tool.input_schema)) throw new Error(`tool "${tool.name}": input_schema must be an object`);
    const declaredDraft = (tool.input_schema as { $schema?: unknown }).$schema;
    const is2020 = typeof declaredDraft === 'string' && declaredDraft.includes('2020-12');
    try {
      const ajv = is2020 ? (draft2020 ??= new Ajv2020(AJV_OPTIONS)) : (draft07 ??= new Ajv(AJV_OPTIONS));
      validators.set(tool.name, ajv.compile(tool.input_schema));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`tool "${tool.name}": invalid input_schema: ${message}`);
    }
  }

  return (name, toolArguments) => {
    const validate = validators.get(name);
    if (!validate) return { ok: false, reason: unknownToolReason(name) };
    if (!isPlainObject(toolArguments)) return { ok: false, reason: schemaInvalidReason([], 'must be object') };
    if (validate(toolArguments)) return { ok: true, value: toolArguments };
    return { ok: false, reason: reasonFromAjvError(validate.errors?.[0]) };
  };
}

function reasonFromAjvError(error: ErrorObject | undefined): string {
  if (!error) return schemaInvalidReason([], 'invalid');
  const path = pathFromPointer(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return schemaInvalidReason([...path, String(params.missingProperty)], 'missing_required');
    case 'additionalProperties':
      return schemaInvalidReason([...path, String(params.additionalProperty)], 'unknown_field');
    case 'unevaluatedProperties':
      return schemaInvalidReason([...path, String(params.unevaluatedProperty)], 'unknown_field');
    default:
      return schemaInvalidReason(path, error.message ?? error.keyword);
  }
}

/** `/a/0/b~1c` → ['a', '0', 'b/c'] (RFC 6901 unescaping). */
function pathFromPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}
