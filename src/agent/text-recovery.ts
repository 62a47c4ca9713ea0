// Wires the strict two-phase parser (src/parsing) into the turn logic: the allowlist is the
// current tier and arguments are checked against the tools' own zod schemas.
import { createZodValidator, parseToolCallsFromText } from '../parsing/index.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import type { TextRecovery } from './stop-reason-handler.js';

export function createTextRecovery(options: { maxFallbackBytes?: number } = {}) {
  const validate = createZodValidator(toolInputSchemas);
  return (text: string, allowedTools: readonly string[], toolIntent: boolean): TextRecovery =>
    parseToolCallsFromText(text, {
      allowedTools,
      knownTools: Object.keys(toolInputSchemas),
      validate,
      toolIntent,
      ...(options.maxFallbackBytes ? { maxFallbackBytes: options.maxFallbackBytes } : {}),
    });
}
