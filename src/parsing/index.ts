// The public API of src/parsing; every other file here is internal.
export { parseToolCallsFromText } from './parse-tool-calls.js';
export { createJsonSchemaValidator } from './create-json-schema-validator.js';
export { createZodValidator } from './create-zod-validator.js';
export { runParseCommand } from './parse-command.js';
export { DEFAULT_MAX_FALLBACK_BYTES } from './validate-candidate.js';
export { TOOL_INTENT_LINE_MARKER, TOOL_INTENT_TAG_MARKER } from './tool-intent-marker.js';
export * from './parse-reasons.js';
export type {
  ArgumentValidation,
  ArgumentValidator,
  CandidateMode,
  ParseMode,
  ParseOptions,
  ParseResult,
  ParsedToolCall,
  SchemaValidationOutcome,
} from './parse-types.js';
