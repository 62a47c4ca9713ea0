// Whether this turn drifts into writing its tool call as text, and in which format. Models drift
// more as the tool list grows, so the probability is a table keyed by the number of tools.
import { deterministicFraction } from './deterministic-random.js';
import {
  ANTHROPIC_DRIFT_FORMATS,
  TEXT_TOOL_CALL_FORMATS,
  TEXT_TOOL_CALL_FORMAT_ALIASES,
  textToolCallFormatNamed,
  type TextToolCallFormat,
} from './text-tool-call-format.js';

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

/** Header `x-buildfleet-text-format`: pins the format a drifting turn writes (any of
 * TEXT_TOOL_CALL_FORMATS or an alias); absent, the endpoint's own rotation picks one. */
export const HEADER_TEXT_FORMAT = 'x-buildfleet-text-format';

export type TextFormatHeader = { ok: true; format: TextToolCallFormat | null } | { ok: false; message: string };

/** Reads `x-buildfleet-text-format`; an unknown name is the caller's 400 invalid_request_error. */
export function parseTextFormatHeader(value: string | undefined): TextFormatHeader {
  const name = value?.trim().toLowerCase() ?? '';
  if (name === '') return { ok: true, format: null };
  const format = textToolCallFormatNamed(name);
  if (format !== null) return { ok: true, format };
  const known = [...TEXT_TOOL_CALL_FORMATS, ...Object.keys(TEXT_TOOL_CALL_FORMAT_ALIASES)].join(', ');
  return { ok: false, message: `${HEADER_TEXT_FORMAT}: unknown text tool-call format "${name}"; known: ${known}` };
}

/**
 * The drift format for a transcript: `pinned` when the request pinned one, otherwise rotating
 * over `formats` as transcripts change — by default what a Claude model drifts into (the
 * Messages endpoint); the chat completions endpoint passes OPEN_MODEL_TEXT_FORMATS.
 */
export function pickTextCallFormat({
  seed,
  transcriptHash,
  formats = ANTHROPIC_DRIFT_FORMATS,
  pinned = null,
}: {
  seed: number;
  transcriptHash: string;
  formats?: readonly TextToolCallFormat[];
  pinned?: TextToolCallFormat | null;
}): TextToolCallFormat {
  if (pinned !== null) return pinned;
  const fraction = deterministicFraction({ parts: [seed, transcriptHash, 'text-call-format'] });
  return formats[Math.floor(fraction * formats.length)] ?? 'tool_tag';
}

/** The format to drift into, or null to make a proper tool_use call. */
export function decideTextToolCall({
  mode,
  table,
  toolCount,
  seed,
  transcriptHash,
  formats,
  pinned = null,
}: {
  mode: TextCallMode;
  table: TextCallProbabilityTable;
  toolCount: number;
  seed: number;
  transcriptHash: string;
  /** The formats to rotate over; default ANTHROPIC_DRIFT_FORMATS. */
  formats?: readonly TextToolCallFormat[];
  /** From `x-buildfleet-text-format`: the format to write when the turn drifts (whether it drifts
   * is still the mode's and the table's call). */
  pinned?: TextToolCallFormat | null;
}): TextToolCallFormat | null {
  if (mode === 'off') return null;
  if (mode === 'on') {
    const draw = deterministicFraction({ parts: [seed, transcriptHash, 'text-call-draw'] });
    if (draw >= textCallProbability({ table, toolCount })) return null;
  }
  return pickTextCallFormat({ seed, transcriptHash, pinned, ...(formats ? { formats } : {}) });
}
