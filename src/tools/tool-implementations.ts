// The tools as the tool worker runs them: input schema, output contract, whether it writes, and the
// execute function. The fleet's own five are imported here; the site builder's are each imported
// from the file its entry in src/domain/site-builder-tools.ts names, so a builder tool is declared
// in one place and implemented in one file, with no list here to keep in step. This is the module
// that loads the implementations (Chromium, fetch, the workspace); what the model is told about the
// tools is tool-definitions.ts, which imports none of them.
import type { ToolName } from '../domain/profile.js';
import { SITE_BUILDER_TOOLS, type SiteBuilderToolName } from '../domain/site-builder-tools.js';
import type { ToolImplementation } from './tool-types.js';
import { askUserTool } from './core/ask-user.js';
import { finishTurnTool } from './core/finish-turn.js';
import { readSessionTool } from './core/read-session.js';
import { todoCompleteTool } from './core/todo-complete.js';
import { todoWriteTool } from './core/todo-write.js';

/** Imports a builder tool's file and checks it implements that tool (under its own name). */
async function importBuilderTool(name: SiteBuilderToolName): Promise<[SiteBuilderToolName, ToolImplementation]> {
  const file = SITE_BUILDER_TOOLS[name].implementation;
  // A path built from the entry: Vite (the test runner's transform) cannot follow it, and is told
  // so rather than warning on every run; Node and tsc resolve it as written.
  const module = (await import(/* @vite-ignore */ `./${file}.js`)) as { default?: ToolImplementation };
  const implementation = module.default;
  if (!implementation || typeof implementation.execute !== 'function' || implementation.name !== name) {
    throw new Error(`src/tools/${file} must export the implementation of ${name} as its default export`);
  }
  return [name, implementation];
}

const builderTools = Object.fromEntries(await Promise.all((Object.keys(SITE_BUILDER_TOOLS) as SiteBuilderToolName[]).map(importBuilderTool))) as Record<
  SiteBuilderToolName,
  ToolImplementation
>;

/** Every tool by name. Mutable on purpose: an integration test swaps one implementation for a run
 * (test/integration/tool-output-contracts.test.ts). */
export const toolImplementations: Record<ToolName, ToolImplementation> = {
  todo_write: todoWriteTool,
  todo_complete: todoCompleteTool,
  ask_user: askUserTool,
  read_session: readSessionTool,
  finish_turn: finishTurnTool,
  ...builderTools,
};

/** The implementation part of the site builder's agent (src/agents/site-builder/agent.ts names this
 * module): what src/tools/agent-implementations.ts imports for its TypeScript tools. */
export default toolImplementations;
