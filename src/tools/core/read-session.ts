// read_session: the run's state as the tools left it, read fresh from Redis (the context's run
// record was loaded before this turn's other tool calls ran).
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool } from '../tool-types.js';

export const readSessionTool = defineTool({
  name: 'read_session',
  description:
    'Read the current state of this build: phase, the plan with what is done, the workspace files with their sizes, ' +
    'the latest and the live (published) deployment, and the page metadata.',
  inputSchema: toolInputSchemas.read_session,
  writes: false,
  idempotent: true,
  async execute(_input, context) {
    const [run, files] = await Promise.all([context.store.getRun(context.runId), context.store.listFiles(context.runId)]);
    const current = run ?? context.run;
    return {
      phase: current.phase,
      pending_phase: current.pendingPhase,
      todos: current.todos,
      files,
      latest_deploy: current.latestDeploy,
      live_deploy: current.liveDeploy,
      meta: current.meta,
    };
  },
});
