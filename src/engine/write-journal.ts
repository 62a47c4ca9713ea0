// The run's write journal, read back: one entry per write a guarded effect script made, stamped
// with Redis TIME inside that script (effect-scripts.ts), so audits and the kill switch
// experiment can compare writes with the trip from Redis time alone.
import { z } from 'zod';
import type { RunEngine } from './run-engine.js';

const writeJournalEntrySchema = z.object({
  at_ms: z.number(),
  tool: z.string(),
  /** 'file', 'delete', 'deployment', 'publish', 'meta', 'theme', 'asset'. */
  kind: z.string(),
  target: z.string(),
  /** The tool call (tool_use id) that wrote, when the writer named one. */
  call: z.string().optional(),
});
export type WriteJournalEntry = z.infer<typeof writeJournalEntrySchema>;

/** The journal in write order, each entry validated (a malformed entry throws). */
export async function readWriteJournal({ engine, runId }: { engine: RunEngine; runId: string }): Promise<WriteJournalEntry[]> {
  return (await engine.getWriteJournal(runId)).map((entry) => writeJournalEntrySchema.parse(entry));
}
