// The tool_choice a model request carries (Messages API `tool_choice`, the forms the fleet sends).
// In the domain because the agent decides it (agent/tool-choice-policy.ts) and the model client
// sends it, and the model layer must not import the agent.

export type ToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'tool'; name: string };
