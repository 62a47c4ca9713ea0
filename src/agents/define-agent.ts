// The public definition API of an agent (issue #33, docs/agents.md): what a team writes to run its
// own agent on the fleet, and what the site builder (./site-builder/agent.ts) is written in.
//
// An agent is a definition part and an implementation part. The definition — this file's types —
// is data and pure functions: its tools' names, descriptions, input schemas and effects, its phases
// and their tiers, the transitions between phases, its finish gate over the run's trail, its system
// prompt. The API and model workers load only that. The implementation part, the code that runs
// a TypeScript tool, is a separate module the definition names by URL (`implementations`), which
// only tool workers import: the rule that the model worker's import graph holds no tool
// implementation (.dependency-cruiser.cjs) holds for every agent. HTTP and MCP tools need no
// implementation module: the fleet calls them (src/tools/http-tool, src/tools/mcp-tool).
//
// defineAgent checks a definition when it is loaded, so a wrong one fails the process at start with
// a message naming what is wrong, never a run later (compile-agent.ts).
import type { z } from 'zod';
import type { ToolOutputContract } from '../domain/tool-output-contract.js';
import type { McpServerSpec } from '../domain/mcp-server-spec.js';

/** `write`: changes something outside the run (a file, a deployment, an order): the kill switch
 * and skip_writes safe mode refuse it, and a turn that plans one is made durable first. */
export type ToolEffect = 'read' | 'write';

interface ToolSpecCommon<Input extends z.ZodType = z.ZodType> {
  /** What the model calls it: ^[a-zA-Z0-9_-]{1,64}$ (the Messages API's tool name rule). */
  name: string;
  /** What the model reads about it. */
  description: string;
  /** The input; strict objects recommended: an unknown field is then refused, not ignored. */
  input: Input;
  effect: ToolEffect;
}

/** A tool whose code is a TypeScript module tool workers load (the agent's `implementations`). */
export interface TypeScriptToolSpec<Input extends z.ZodType = z.ZodType> extends ToolSpecCommon<Input> {
  kind: 'typescript';
  /** How long a call may run before it is aborted (its context's signal) and treated as a timeout:
   * 1,000 to 600,000 ms; default 60,000. */
  timeoutMs?: number;
  /** Whether a call may run again after an unknown outcome (a crash or timeout mid-call); a call
   * that is not is answered `tool_outcome_unknown` and never run twice
   * (docs/agents.md#effects-and-exactly-once). Declared, it must be what the implementation says
   * (the tool worker refuses one that says otherwise); unset, the implementation's own `idempotent`
   * stands (the site builder's write tools declare none: their implementations say true). */
  idempotent?: boolean;
  /** What the output must be and what happens when it is not (docs/tool-outputs.md): its schema,
   * invariants over the output and the input, and `fail_closed` or `degrade`. Declared here, it
   * rules over the implementation's own, so the definition says in one place what the tool gives. */
  output?: ToolOutputContract;
}

/** A tool served by the operator's HTTP service (src/tools/http-tool/define-http-tool.ts). */
export interface HttpToolSpec<Input extends z.ZodType = z.ZodType, Output = unknown> extends ToolSpecCommon<Input> {
  kind: 'http';
  url: string;
  output: ToolOutputContract<Output>;
  timeoutMs?: number;
}

/** Tools an MCP server offers (src/tools/mcp-tool/connect-mcp-tools.ts): listed when the agent is
 * loaded, their input schemas the server's; each named tool offered under `name` if given. */
export interface McpToolsSpec {
  kind: 'mcp';
  server: McpServerSpec;
  tools: Record<string, { effect: ToolEffect; name?: string; description?: string }>;
  timeoutMs?: number;
  mode?: 'fail_closed' | 'degrade';
}

export type AgentToolSpec = TypeScriptToolSpec | HttpToolSpec | McpToolsSpec;

/** The fleet's own tools, which any agent may put in its phases by name: the plan and its todos,
 * a question to the user, the run's state, and finish_turn — which every phase has whether listed
 * or not, since it is how a run ends (it asks the agent's finish gate). */
export const FLEET_TOOLS = ['todo_write', 'todo_complete', 'ask_user', 'read_session', 'finish_turn'] as const;
export type FleetToolName = (typeof FLEET_TOOLS)[number];

/** One tool call's outcome as the run's trail holds it. */
export interface TrailCall {
  tool: string;
  ok: boolean;
  phase: string;
}

/** What a finish gate reads. */
export interface FinishView {
  trail: readonly TrailCall[];
  todos: readonly { id: string; title: string; done: boolean; phase?: string }[];
  /** The run's latest and live deployment ids (the fleet's deploy tools set them). */
  deployments: { latest: string | null; live: string | null };
}

/** A phase change: after a successful call of `on` in phase `from`, the run's next turn is in `to`.
 * `when` narrows it by the call's output and the run's todos after the call. */
export interface PhaseTransition {
  from: string;
  on: string;
  to: string;
  when?: (state: { output: unknown; todos: FinishView['todos'] }) => boolean;
}

export interface PhaseSpec {
  /** The tools the model may see and call in this phase (its tier). */
  tools: readonly string[];
  /** Said to the model with the phase's name when the run enters it. */
  instructions?: string;
}

export interface AgentDefinition<Input extends z.ZodType = z.ZodType> {
  /** ^[a-z][a-z0-9-]{1,39}$: what POST /v1/runs names in `agent`. */
  name: string;
  description: string;
  /** The run's input (POST /v1/runs `input`). */
  input: Input;
  /** The run's first user message, from its input. */
  firstMessage: (input: z.infer<Input>) => string;
  /** The phases in order; a run starts in the first. */
  phases: Record<string, PhaseSpec>;
  tools: readonly AgentToolSpec[];
  transitions?: readonly PhaseTransition[];
  /** The plan-first rule: in the first phase, nothing runs before todo_write has written a plan,
   * and a model that can be forced is forced to write it (src/agent/tool-choice-policy.ts). */
  planFirst?: boolean;
  /** What is still missing before the run may end, one instruction per item, worded for the model;
   * none: finish_turn passes. Judged from what tools recorded, never from what the model says. */
  finishGate: (view: FinishView) => string[];
  /** The agent's part of the system prompt; the fleet adds its rules (tool output is data, native
   * tool use only) and the phase. The same bytes every turn: it is the cached prefix. */
  systemPrompt: string;
  /** Module (a URL, e.g. `new URL('./tools.js', import.meta.url).href`) whose default export maps
   * each TypeScript tool's name to its implementation; tool workers import it, nothing else does. */
  implementations?: string;
  /** Defaults of a run of this agent where the request names none; the tenant's limits still apply
   * (a model outside its allowedModels, more turns than its maximum, are refused as if asked for). */
  defaults?: { maxTurns?: number; model?: string };
  /** Lift the 13-tools-per-request limit for this agent, with the reason (docs/agents.md). */
  largeTiers?: { maxTools: number; reason: string };
}

/** Declares a TypeScript tool: its implementation lives in the agent's `implementations` module. */
export function defineTool<Input extends z.ZodType>(spec: Omit<TypeScriptToolSpec<Input>, 'kind'>): TypeScriptToolSpec<Input> {
  return { kind: 'typescript', ...spec };
}

/** Declares an HTTP tool: the fleet POSTs each call to `url`, signed, with an idempotency key. */
export function httpTool<Input extends z.ZodType, Output>(spec: Omit<HttpToolSpec<Input, Output>, 'kind'>): HttpToolSpec<Input, Output> {
  return { kind: 'http', ...spec };
}

/** Declares the tools of an MCP server the agent offers. */
export function mcpTools(spec: Omit<McpToolsSpec, 'kind'>): McpToolsSpec {
  return { kind: 'mcp', ...spec };
}

/** Declares an agent. Checked in full when loaded (compileAgent); the identity function here keeps
 * the input type inferred for firstMessage. */
export function defineAgent<Input extends z.ZodType>(definition: AgentDefinition<Input>): AgentDefinition<Input> {
  return definition;
}
