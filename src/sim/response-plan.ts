// The shape of one response before ids and token counts are attached: content blocks and the
// stop reason. The policy's turn becomes one plainly; scenarios and text-call drift bend it.
import type { PlannedTurn } from './planned-turn.js';
import type { ScenarioName } from '../domain/scenario-names.js';

export type ResponseBlock =
  | { type: 'text'; text: string }
  | {
      type: 'tool_use';
      name: string;
      input: Record<string, unknown>;
      /** The JSON as written on the wire when a scenario cut the call off; `input` is what it parses to. */
      partialJson?: string;
      /** The id an adversarial scenario sends instead of a minted `toolu_…` one. */
      id?: string;
    }
  /** Signed with the simulator's secret when the message is rendered (assistant-message.ts);
   * `textShown` false: it goes out with empty text, its reasoning still billed (display `omitted`). */
  | { type: 'thinking'; thinking: string; textShown: boolean }
  /** Stands for reasoning the safety systems hid; rendered as opaque, signed `data`. */
  | { type: 'redacted_thinking'; hiddenText: string };

export interface RefusalStopDetails {
  type: 'refusal';
  category: null;
  explanation: string;
}

export interface ResponsePlan {
  blocks: ResponseBlock[];
  /** A string rather than the SDK's union: `unknown_stop_reason` sends one the SDK has never seen. */
  stopReason: string;
  stopSequence: string | null;
  stopDetails: RefusalStopDetails | null;
  /** What shaped the response, for the request log. */
  source: 'policy' | 'text-tool-call' | 'script' | ScenarioName;
  /** A once-per-run scenario fired: the server remembers it for the run id. */
  firesOncePerRun: boolean;
}

/** Blocks for a planned turn as the model would normally emit them. */
export function blocksForTurn({ turn }: { turn: PlannedTurn }): ResponseBlock[] {
  if (turn.kind === 'final-answer') return [{ type: 'text', text: turn.paragraphs.join('\n\n') }];
  const toolUses = turn.calls.map((call): ResponseBlock => ({ type: 'tool_use', name: call.name, input: call.input }));
  return turn.preface ? [{ type: 'text', text: turn.preface }, ...toolUses] : toolUses;
}

/** The unbent response for a planned turn. */
export function planFromTurn({ turn }: { turn: PlannedTurn }): ResponsePlan {
  return {
    blocks: blocksForTurn({ turn }),
    stopReason: turn.kind === 'final-answer' ? 'end_turn' : 'tool_use',
    stopSequence: null,
    stopDetails: null,
    source: 'policy',
    firesOncePerRun: false,
  };
}
