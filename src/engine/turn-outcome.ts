// What a committed turn decided, as stored in its turn hash and read back (validated) by the
// next turn and by a replay of the same turn.
import { z } from 'zod';

export const nextInputSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('tool_results'), toolUseIds: z.array(z.string()), note: z.string().nullable() }),
  z.object({ kind: z.literal('text'), text: z.string() }),
  z.object({ kind: z.literal('none') }),
]);
/** What the next turn sends the model, as the turn that decided it left it. */
export type NextInput = z.infer<typeof nextInputSchema>;

/** A tool call the turn hands to the tool queue (calls refused by the turn are answered in it). */
export const plannedDispatchSchema = z.object({
  runId: z.string(),
  turn: z.int(),
  toolUseId: z.string(),
  name: z.string(),
  input: z.unknown(),
  parseMode: z.string(),
});
export type PlannedDispatch = z.infer<typeof plannedDispatchSchema>;

export const turnOutcomeSchema = z.object({
  decision: z.enum(['tools', 'continue', 'succeed', 'end']),
  nextInput: nextInputSchema.nullable(),
  dispatch: z.array(plannedDispatchSchema),
});
export type TurnOutcome = z.infer<typeof turnOutcomeSchema>;
