// Older vLLM (its OpenAI server before errors were nested, vllm/entrypoints/openai/protocol.py
// ErrorResponse: `{"object": "error", "message": …, "type": …, "param": …, "code": 400}`) and some
// other servers answer an error with its fields at the top level. The openai SDK reads only the
// nested form (openai-node src/core/error.ts APIError.generate: `const error = errorResponse?.['error']`),
// so such an answer becomes "400 status code (no body)": the message is lost, and with it what
// openai-error.ts reads a context overflow from. Nesting the body first keeps both.

/** A non-2xx JSON answer whose error fields sit at the top level, with them nested under `error`
 * (status and headers kept); any other answer unchanged. */
export async function nestTopLevelErrorBody(response: Response): Promise<Response> {
  if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const text = await response.text();
  const rebuilt = (body: string) => {
    // The body is decoded and its length changes: the old framing headers would lie.
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return rebuilt(text);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return rebuilt(text);
  const body = json as Record<string, unknown>;
  if (Object.hasOwn(body, 'error') || typeof body.message !== 'string') return rebuilt(text);
  return rebuilt(JSON.stringify({ error: { message: body.message, type: body.type ?? null, code: body.code ?? null, param: body.param ?? null } }));
}
