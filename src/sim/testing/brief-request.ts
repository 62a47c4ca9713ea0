// The request body the per-model rule tests start from: the bakery brief, one planning tool.

/** A Messages body for `model` with the brief and the todo_write tool; `extra` fields win. */
export function briefRequest({
  model,
  maxTokens = 4096,
  extra = {},
}: {
  model: string;
  maxTokens?: number;
  extra?: Record<string, unknown>;
}): Record<string, unknown> {
  return {
    model,
    max_tokens: maxTokens,
    messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
    tools: [{ name: 'todo_write', description: 'plan', input_schema: { type: 'object', properties: {} } }],
    ...extra,
  };
}
