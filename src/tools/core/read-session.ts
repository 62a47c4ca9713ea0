// read_session: the run's state as the tools left it, read fresh from Redis (the context's run
// record was loaded before this turn's other tool calls ran).
import { z } from 'zod';
import { PHASE_NAME } from '../../domain/profile.js';
import { todoState } from '../../engine/index.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool } from '../tool-types.js';

export const readSessionTool = defineTool({
  name: 'read_session',
  description: toolDescriptions.read_session,
  inputSchema: toolInputSchemas.read_session,
  output: {
    schema: z.strictObject({
      phase: z.string().regex(PHASE_NAME),
      pending_phase: z.string().regex(PHASE_NAME).nullable(),
      todos: z.array(todoState),
      files: z.array(z.strictObject({ path: z.string().min(1), bytes: z.int().min(0) })),
      latest_deploy: z.string().nullable(),
      live_deploy: z.string().nullable(),
      meta: z.strictObject({ title: z.string(), description: z.string() }).nullable(),
    }),
    invariants: [
      {
        name: 'live_deploy_is_a_deploy_id',
        check: (output) => output.live_deploy === null || output.live_deploy.startsWith('dep_'),
      },
    ],
    mode: 'fail_closed',
  },
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
