// The tools array of a model request: each tool of the run's agent (src/agents/compile-agent.ts:
// its name, description and input JSON Schema) as the Messages API takes it, strict and deferred as
// asked; and the same for the builder's catalog by name (src/domain/tool-descriptions.ts,
// tool-input-schemas.ts), for experiments and checks. Nothing here imports a tool's implementation
// (tool-implementations.ts), so the model worker, which needs only this, loads no Chromium, fetch
// or workspace code. Each entry is built once per set and cached, because every model request of
// every run asks for them.
import { ALL_TOOLS, type ToolName } from '../domain/profile.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { toolDescriptions } from '../domain/tool-descriptions.js';
import { inputJsonSchemaOf } from '../domain/input-json-schema.js';
import { MAXIMUM_STRICT_TOOLS, strictInputSchema } from './strict-input-schema.js';

export { MAXIMUM_STRICT_TOOLS };

/** Structurally the Anthropic SDK's Tool.InputSchema. */
export interface AnthropicInputSchema {
  type: 'object';
  properties?: unknown;
  required?: string[];
  [keyword: string]: unknown;
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: AnthropicInputSchema;
  /** Stream the tool's input as it is generated instead of per buffered parameter (SDK Tool). */
  eager_input_streaming: true;
  /** Strict tool use: the input always matches `input_schema` (strict-input-schema.ts). */
  strict?: true;
  /** Declared but withheld until a tool_addition surfaces it (src/agent/phase-tools.ts). */
  defer_loading?: true;
}

/** How a tools array is built: strict tool use, and the tools declared with defer_loading. */
export interface ToolDefinitionOptions {
  strict?: boolean;
  deferred?: ReadonlySet<string>;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const anthropicToolCache = new Map<string, AnthropicTool>();

/** What a tools array entry is made of: an agent's tool (src/agents/compile-agent.ts AgentTool). */
export interface ToolDescriptionSource {
  name: string;
  description: string;
  /** The input's JSON Schema, generated from its zod schema (or an MCP server's). */
  inputJsonSchema: Record<string, unknown>;
}

function anthropicTool(source: ToolDescriptionSource, cacheKey: string, strict: boolean, deferred: boolean): AnthropicTool {
  const key = `${cacheKey}:${source.name}:${strict ? 'strict' : ''}:${deferred ? 'deferred' : ''}`;
  const cached = anthropicToolCache.get(key);
  if (cached) return cached;
  const schema = strict ? strictInputSchema(source.inputJsonSchema) : source.inputJsonSchema;
  // Frozen because the cached object is shared by every request; a caller mutating it would
  // change the tools of every later run.
  // eager_input_streaming: without it the API buffers and validates each parameter before sending
  // it (docs agents-and-tools/tool-use/fine-grained-tool-streaming), so a write_file `content` of
  // thousands of tokens would arrive at the end in one piece after only pings, and the run's
  // model-progress events would show nothing while a page is written. The fleet validates every
  // input itself (src/agent/reject-call.ts) and a max_tokens cut is handled either way.
  const tool = deepFreeze({
    name: source.name,
    description: source.description,
    input_schema: structuredClone(schema) as AnthropicInputSchema,
    eager_input_streaming: true as const,
    ...(strict ? { strict: true as const } : {}),
    ...(deferred ? { defer_loading: true as const } : {}),
  });
  anthropicToolCache.set(key, tool);
  return tool;
}

/** The tools array of a model request, in the order given; strict and deferred as asked.
 * `cacheKey` names the set the sources come from (an agent's fingerprint): same key, same bytes. */
export function anthropicToolsOf(
  sources: readonly ToolDescriptionSource[],
  { strict = false, deferred, cacheKey }: ToolDefinitionOptions & { cacheKey: string },
): AnthropicTool[] {
  if (strict && sources.length > MAXIMUM_STRICT_TOOLS) throw new Error(`At most ${MAXIMUM_STRICT_TOOLS} strict tools per request; asked for ${sources.length}`);
  return sources.map((source) => anthropicTool(source, cacheKey, strict, deferred?.has(source.name) ?? false));
}

const builderSources = new Map<ToolName, ToolDescriptionSource>();

/** The builder's catalog entry of a tool as a description source. */
function builderSource(name: ToolName): ToolDescriptionSource {
  let source = builderSources.get(name);
  if (!source) {
    source = { name, description: toolDescriptions[name], inputJsonSchema: inputJsonSchemaOf(toolInputSchemas[name]) };
    builderSources.set(name, source);
  }
  return source;
}

/** The tools array of the builder's tools by name (experiments and checks of the builder's catalog). */
export function anthropicToolsFor(names: readonly ToolName[], options: ToolDefinitionOptions = {}): AnthropicTool[] {
  return anthropicToolsOf(names.map(builderSource), { ...options, cacheKey: 'builder-catalog' });
}

/** Every tool, for checks that need the whole catalog. */
export const allAnthropicTools = (): AnthropicTool[] => anthropicToolsFor(ALL_TOOLS);
