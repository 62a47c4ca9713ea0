// finish_turn: the model's claim that the site is done, checked against the trail by the finish
// gate before the run may end.
import { z } from 'zod';
import { evaluateFinishGate } from '../../agent/finish-gate.js';
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool, ToolError } from '../tool-types.js';
import { ensureRunUpdated } from './ensure-run-updated.js';

export const finishTurnTool = defineTool({
  name: 'finish_turn',
  description:
    'Declare the site finished, with a short summary for the user. It is checked: the plan must be complete, ' +
    'at least 3 files written, the final workspace deployed and that deployment published. If anything is missing ' +
    'the call fails and lists what to do.',
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
    const gate = evaluateFinishGate({
      todos: current.todos,
      trail,
      deployments: { latest: current.latestDeploy, live: current.liveDeploy },
    });
    if (!gate.passed) {
      throw new ToolError('finish_gate_failed', `The site is not finished yet:\n${gate.missing.map((line) => `- ${line}`).join('\n')}`);
    }
    await ensureRunUpdated({ store: context.store, runId: context.runId, update: { finishVerified: true, pendingPhase: 'done' } });
    return { finished: true, summary: input.summary };
  },
});
