// finish_turn: the model's claim that the site is done, checked against the trail by the finish
// gate before the run may end. Passing it marks the run verified; its next turn asks for the summary.
import { z } from 'zod';
import { findAgent } from '../../agents/index.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool, ToolError } from '../tool-types.js';
import { ensureRunUpdated } from './ensure-run-updated.js';

export const finishTurnTool = defineTool({
  name: 'finish_turn',
  description: toolDescriptions.finish_turn,
  inputSchema: toolInputSchemas.finish_turn,
  output: {
    schema: z.strictObject({ finished: z.literal(true), summary: z.string().min(1).max(2000) }),
    mode: 'fail_closed',
  },
  writes: false,
  idempotent: true,
  async execute(input, context) {
    const [run, trail] = await Promise.all([context.store.getRun(context.runId), context.store.getTrail(context.runId)]);
    const current = run ?? context.run;
    // The run's agent's gate (checkToolCall found the agent before this call could run).
    const agent = findAgent(current.agent);
    if (!agent) throw new Error(`agent ${current.agent} is not loaded in this worker`);
    const missing = agent.finishGate({ todos: current.todos, trail, deployments: { latest: current.latestDeploy, live: current.liveDeploy } });
    if (missing.length > 0) {
      throw new ToolError('finish_gate_failed', `The work is not finished yet:\n${missing.map((line) => `- ${line}`).join('\n')}`);
    }
    // The run stays in its phase: the summary turn keeps this turn's tools, system prompt and
    // tool_choice, so its request reads the cached prefix (src/agent/summary-request.ts).
    await ensureRunUpdated({ store: context.store, runId: context.runId, update: { finishVerified: true } });
    return { finished: true, summary: input.summary };
  },
});
