// The JSON Schema keywords strict tool use cannot hold (docs build-with-claude/structured-outputs,
// "JSON Schema limitations": string lengths and patterns, numeric bounds, array sizes other than
// `minItems` 0 or 1). The fleet moves them into the schema's description as
// "(minLength 1, maxLength 64, pattern ^[a-z]+$)" (src/tools/strict-input-schema.ts), as the SDKs'
// helpers do; the simulator's schema policy reads them back from there (src/sim/schema-policy.ts).

/** Keywords the strict grammar does not take at all. */
export const STRICT_UNSUPPORTED_KEYWORDS = [
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'maxItems',
  'uniqueItems',
] as const;

/** Every keyword that may be moved into a description: those, and `minItems` above 1. */
export const STRICT_MOVED_KEYWORDS = [...STRICT_UNSUPPORTED_KEYWORDS, 'minItems'] as const;
