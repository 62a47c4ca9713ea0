// The builder's 19 tools as the tool worker runs them: input schema, output contract, whether it
// writes, and the execute function. This is the module that loads the implementations (Chromium,
// fetch, the workspace); what the model is told about the tools is tool-definitions.ts, which
// imports none of them.
import type { ToolName } from '../domain/profile.js';
import type { ToolImplementation } from './tool-types.js';
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

/** Every tool by name. Mutable on purpose: an integration test swaps one implementation for a run
 * (test/integration/tool-output-contracts.test.ts). */
export const toolImplementations: Record<ToolName, ToolImplementation> = {
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

/** The implementation part of the site builder's agent (src/agents/site-builder/agent.ts names this
 * module): what src/tools/agent-implementations.ts imports for its TypeScript tools. */
export default toolImplementations;
