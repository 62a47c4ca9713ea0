// Whether this turn drifts into writing its tool call as text, and in which format. Models drift
// more as the tool list grows, so the probability is a table keyed by the number of tools.
import { deterministicFraction } from './deterministic-random.js';
import { TEXT_TOOL_CALL_FORMATS, type TextToolCallFormat } from './text-tool-call-format.js';

export interface TextCallProbabilityBand {
  /** Applies to requests with at most this many tools (the last band also covers anything above). */
  maxToolCount: number;
  /** 0..1 */
  probability: number;
}
export type TextCallProbabilityTable = readonly TextCallProbabilityBand[];

export const DEFAULT_TEXT_CALL_PROBABILITY: TextCallProbabilityTable = [
  { maxToolCount: 12, probability: 0.01 },
  { maxToolCount: 25, probability: 0.05 },
  { maxToolCount: 40, probability: 0.2 },
  { maxToolCount: Number.POSITIVE_INFINITY, probability: 0.4 },
];

/** From header `x-buildfleet-text-calls`: `on` uses the table, `off` never drifts, `always` always does. */
export const TEXT_CALL_MODES = ['off', 'on', 'always'] as const;
export type TextCallMode = (typeof TEXT_CALL_MODES)[number];

/** The probability the table gives a request with `toolCount` tools. */
export function textCallProbability({ table, toolCount }: { table: TextCallProbabilityTable; toolCount: number }): number {
  const band = table.find((candidate) => toolCount <= candidate.maxToolCount) ?? table[table.length - 1];
  return band?.probability ?? 0;
}

/** The drift format for a transcript, rotating over all formats as transcripts change. */
export function pickTextCallFormat({ seed, transcriptHash }: { seed: number; transcriptHash: string }): TextToolCallFormat {
  const fraction = deterministicFraction({ parts: [seed, transcriptHash, 'text-call-format'] });
  return TEXT_TOOL_CALL_FORMATS[Math.floor(fraction * TEXT_TOOL_CALL_FORMATS.length)] ?? 'tool_tag';
}

/** The format to drift into, or null to make a proper tool_use call. */
export function decideTextToolCall({
  mode,
  table,
  toolCount,
  seed,
  transcriptHash,
}: {
  mode: TextCallMode;
  table: TextCallProbabilityTable;
  toolCount: number;
  seed: number;
  transcriptHash: string;
}): TextToolCallFormat | null {
  if (mode === 'off') return null;
  if (mode === 'on') {
    const draw = deterministicFraction({ parts: [seed, transcriptHash, 'text-call-draw'] });
    if (draw >= textCallProbability({ table, toolCount })) return null;
  }
  return pickTextCallFormat({ seed, transcriptHash });
}
