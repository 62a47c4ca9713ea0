// The error envelope of the OpenAI API, which vLLM, llama.cpp's server and Ollama copy for their
// OpenAI-compatible routes: `{"error": {"message", "type", "param", "code"}}` (OpenAI API reference,
// "Error codes"; openai-node src/core/error.ts `APIError.generate` reads `error.message`, `.type`,
// `.param` and `.code` from this object and picks the error class from the HTTP status alone).

export interface OpenAIErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

export interface OpenAIErrorBody {
  error: OpenAIErrorObject;
}

/** A refused chat completions request: the status and the error object it is answered with. */
export class ChatRequestRefused extends Error {
  readonly status: number;
  readonly error: OpenAIErrorObject;

  constructor({
    status = 400,
    message,
    type = 'invalid_request_error',
    param = null,
    code = null,
  }: {
    status?: number;
    message: string;
    type?: string;
    param?: string | null;
    code?: string | null;
  }) {
    super(message);
    this.status = status;
    this.error = { message, type, param, code };
  }
}

/** Builds the error body. */
export function createOpenAIErrorBody(error: OpenAIErrorObject): OpenAIErrorBody {
  return { error: { ...error } };
}
