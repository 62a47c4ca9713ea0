// The catalog of the builder's 19 tools, and the tool list sent to the model for a phase. The
// JSON Schemas are generated from the zod input schemas once per tool and cached, because every
// model request of every run asks for them.
import { z } from 'zod';
import { ALL_TOOLS, type ToolName } from '../agent/profile.js';
import type { ToolDefinition } from './tool-types.js';
import { askUserTool } from './core/ask-user.js';
import { finishTurnTool } from './core/finish-turn.js';
import { readSessionTool } from './core/read-session.js';
import { todoCompleteTool } from './core/todo-complete.js';
import { todoWriteTool } from './core/todo-write.js';
import { deleteFileTool } from './build/delete-file.js';
import { deployTool } from './build/deploy.js';
import { fetchImageTool } from './build/fetch-image.js';
import { listFilesTool } from './build/list-files.js';
import { readFileTool } from './build/read-file.js';
import { setColorsTool } from './build/set-colors.js';
import { setFontsTool } from './build/set-fonts.js';
import { writeFileTool } from './build/write-file.js';
import { checkBrokenImagesTool } from './ops/check-broken-images.js';
import { fetchUrlLiveTool } from './ops/fetch-url-live.js';
import { publishTool } from './ops/publish.js';
import { regenOgTool } from './ops/regen-og.js';
import { screenshotTool } from './ops/screenshot.js';
import { setMetaTool } from './ops/set-meta.js';

export const toolDefinitions: Record<ToolName, ToolDefinition> = {
  todo_write: todoWriteTool,
  todo_complete: todoCompleteTool,
  ask_user: askUserTool,
  read_session: readSessionTool,
  finish_turn: finishTurnTool,
  fetch_image: fetchImageTool,
  set_colors: setColorsTool,
  set_fonts: setFontsTool,
  write_file: writeFileTool,
  list_files: listFilesTool,
  read_file: readFileTool,
  delete_file: deleteFileTool,
  deploy: deployTool,
  fetch_url_live: fetchUrlLiveTool,
  screenshot: screenshotTool,
  check_broken_images: checkBrokenImagesTool,
  regen_og: regenOgTool,
  set_meta: setMetaTool,
  publish: publishTool,
};

/** Structurally the Anthropic SDK's Tool.InputSchema. */
export interface AnthropicInputSchema {
  type: 'object';
  properties?: unknown;
  required?: string[];
  [keyword: string]: unknown;
}

export interface AnthropicTool {
  name: ToolName;
  description: string;
  input_schema: AnthropicInputSchema;
  /** Stream the tool's input as it is generated instead of per buffered parameter (SDK Tool). */
  eager_input_streaming: true;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

const anthropicToolCache = new Map<ToolName, AnthropicTool>();

function anthropicTool(name: ToolName): AnthropicTool {
  const cached = anthropicToolCache.get(name);
  if (cached) return cached;
  const definition = toolDefinitions[name];
  const { $schema: _dialect, ...schema } = z.toJSONSchema(definition.inputSchema) as Record<string, unknown>;
  if (schema.type !== 'object') throw new Error(`Tool ${name}'s input schema is not an object schema`);
  // Frozen because the cached object is shared by every request; a caller mutating it would
  // change the tools of every later run.
  // eager_input_streaming: without it the API buffers and validates each parameter before sending
  // it (docs agents-and-tools/tool-use/fine-grained-tool-streaming), so a write_file `content` of
  // thousands of tokens would arrive at the end in one piece after only pings, and the run's
  // model-progress events would show nothing while a page is written. The fleet validates every
  // input itself (input-schemas.ts) and a max_tokens cut is handled either way.
  const tool = deepFreeze({
    name,
    description: definition.description,
    input_schema: schema as AnthropicInputSchema,
    eager_input_streaming: true as const,
  });
  anthropicToolCache.set(name, tool);
  return tool;
}

/** The tools array of a model request, in the order given. */
export function anthropicToolsFor(names: readonly ToolName[]): AnthropicTool[] {
  return names.map(anthropicTool);
}

/** Every tool, for checks that need the whole catalog. */
export const allAnthropicTools = (): AnthropicTool[] => anthropicToolsFor(ALL_TOOLS);
