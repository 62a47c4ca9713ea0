// What the model is told each tool does: the fleet's own five here, the builder's from their entries
// in site-builder-tools.ts. The agent definitions (src/agents/), the implementation files and the
// request's tools array (src/tools/tool-definitions.ts) all read it, in the domain so the agent
// definition need not import the tools.
import type { ToolName } from './profile.js';
import { SITE_BUILDER_TOOLS } from './site-builder-tools.js';

/** Each tool's description as the model reads it; the implementation files take theirs from here. */
export const toolDescriptions = {
  todo_write:
    'Write the plan for building the site as a list of todos; this replaces any earlier plan and marks every todo not done. ' +
    'Give each todo a short lowercase id (e.g. "home-page"), a title, and a phase: "build" for work done before deploying, ' +
    '"verify" for checks on the deployed site. Writing the plan during planning starts the building phase on the next turn.',
  todo_complete:
    'Mark one todo of the plan as done, by its id. Only mark work that is actually finished. ' +
    'When every "build" todo is done during the building phase, the run moves to the verifying phase on the next turn.',
  ask_user:
    'Ask the person who requested the site one question, when you cannot proceed without their answer ' +
    '(e.g. the business name is missing). The run pauses until they reply. Do not ask about things you can decide yourself.',
  read_session:
    'Read the current state of this build: phase, the plan with what is done, the workspace files with their sizes, ' +
    'the latest and the live (published) deployment, and the page metadata.',
  finish_turn:
    'Declare the site finished, with a short summary for the user. It is checked: the plan must be complete, ' +
    'at least 3 files written, the final workspace deployed and that deployment published. If anything is missing ' +
    'the call fails and lists what to do.',
  ...Object.fromEntries(Object.entries(SITE_BUILDER_TOOLS).map(([name, entry]) => [name, entry.description])),
} as Readonly<Record<ToolName, string>>;
