// A scripted conversation (issue #33, "test your agent without an API key"): the assistant turns a
// test wants the model to give, in order, served by the simulator in the real Messages API's
// grammar — ids, usage, streaming events, thinking where the request asks for it — instead of the
// builder policy's. An agent's flow and its finish gate can then be tested deterministically, with
// any tools, through the real SDK and the real fleet.
//
// A script is JSON:
//
//   {"turns": [
//     {"content": [{"type": "text", "text": "I will plan first."},
//                  {"type": "tool_use", "name": "todo_write", "input": {"todos": [...]}}],
//      "expect_tools": ["todo_write", "todo_complete", "ask_user", "read_session", "finish_turn"]},
//     {"content": [{"type": "text", "text": "Done."}], "stop_reason": "end_turn"}
//   ]}
//
// Turn N answers the request whose transcript holds N assistant messages (a retried request gets
// the same turn again, as a deterministic model would). What the script may say is what the real
// API could answer (scripted-turn.ts polices each turn against the request it answers).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { formatZodIssues } from '../domain/format-zod-issues.js';

/** The stop reasons a scripted turn may end with: those a model's own turn ends with (docs
 * api/handling-stop-reasons). `pause_turn` and `model_context_window_exceeded` are the server's,
 * not the model's, and the simulator's scenarios produce them. */
export const SCRIPTED_STOP_REASONS = ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'refusal'] as const;

const toolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name: 1–64 letters, digits, _ or - (the API refuses others: parse-messages-request.ts)');

const scriptedBlock = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string().min(1) }),
  z.strictObject({ type: z.literal('tool_use'), name: toolName, input: z.record(z.string(), z.unknown()) }),
]);

const scriptedTurn = z
  .strictObject({
    content: z.array(scriptedBlock).min(1).max(64),
    /** Default: `tool_use` when the turn calls a tool, else `end_turn`. */
    stop_reason: z.enum(SCRIPTED_STOP_REASONS).optional(),
    /** With `stop_sequence`: which of the request's `stop_sequences` matched. */
    stop_sequence: z.string().min(1).optional(),
    /** The tools the request must offer at this turn (exactly, in any order): the agent's phase and tier. */
    expect_tools: z.array(toolName).optional(),
  })
  .superRefine((turn, context) => {
    const calls = turn.content.filter((block) => block.type === 'tool_use').length;
    const stopReason = turn.stop_reason ?? (calls > 0 ? 'tool_use' : 'end_turn');
    // A turn that calls a tool ends tool_use (docs handling-stop-reasons: "tool_use: the model
    // called one or more tools"), and only such a turn does; a max_tokens cut of a call is the
    // max-tokens scenario's, whose partial JSON a script cannot write.
    if (calls > 0 && stopReason !== 'tool_use')
      context.addIssue({ code: 'custom', path: ['stop_reason'], message: `a turn that calls a tool ends tool_use, not ${stopReason}` });
    if (calls === 0 && stopReason === 'tool_use')
      context.addIssue({ code: 'custom', path: ['stop_reason'], message: 'tool_use needs a tool_use block in content' });
    if ((stopReason === 'stop_sequence') !== (turn.stop_sequence !== undefined)) {
      context.addIssue({ code: 'custom', path: ['stop_sequence'], message: 'stop_sequence is given exactly when stop_reason is stop_sequence' });
    }
  });

export const conversationScriptSchema = z.strictObject({ turns: z.array(scriptedTurn).min(1).max(1000) });

export type ConversationScript = z.infer<typeof conversationScriptSchema>;
export type ScriptedTurn = ConversationScript['turns'][number];

/** A script from its JSON text; `source` names it in errors (a file path). */
export function parseConversationScript(text: string, source: string): ConversationScript {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = conversationScriptSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(`${source}: not a conversation script: ${formatZodIssues({ issues: parsed.error.issues, whole: '(script)', limit: 10 })}`);
  return parsed.data;
}

/** A script from a JSON file. */
export function readConversationScript(path: string): ConversationScript {
  return parseConversationScript(readFileSync(path, 'utf8'), path);
}
