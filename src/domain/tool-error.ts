// A tool failure the model can act on. In the domain because the tools and the safety guards they
// call (safety/workspace-path.ts) both throw it, and safety must not import the tools.
import type { ToolErrorCode } from './tool-error-codes.js';

/** A failure the model should see as an is_error tool_result, with a stable code. */
export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }

  static isInstance(value: unknown): value is ToolError {
    return value instanceof Error && value.name === 'ToolError' && typeof (value as ToolError).code === 'string';
  }
}
