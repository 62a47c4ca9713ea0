// The payloads of a marker that has no closing counterpart (Mistral's `[TOOL_CALLS]`, Granite's
// `<|tool_call|>`, Llama's `<|python_tag|>`, functionary's `>>>`): the model stops generating
// after its calls, so a payload runs to the next marker or to the end of the text. When the
// payload holds JSON, the scanner finds its end first, so a marker written inside a JSON string
// (a file about these formats) does not cut the payload short. Linear: marker searches only move
// forward, and no character is JSON-scanned twice (the frontier).
import { scanJsonValue } from './json-scan.js';

export interface PayloadHeader {
  /** Where the payload's JSON (or what stands in its place) begins. */
  jsonStart: number;
  /** A name written before the JSON (Mistral `NAME[ARGS]`, functionary `NAME\n`), else null. */
  declaredName: string | null;
}

export interface OpenEndedSegment extends PayloadHeader {
  markerStart: number;
  /** The next marker's start, or the text's length. */
  end: number;
}

/**
 * Each occurrence of `marker` whose payload `readHeader` accepts (null: prose that mentions the
 * marker, not a call). `readHeader` must look only a bounded distance ahead of `payloadStart`.
 */
export function findOpenEndedSegments({
  text,
  marker,
  readHeader,
}: {
  text: string;
  marker: string;
  readHeader: (payloadStart: number) => PayloadHeader | null;
}): OpenEndedSegment[] {
  const segments: OpenEndedSegment[] = [];
  let jsonFrontier = 0;
  let markerStart = text.indexOf(marker);
  while (markerStart >= 0) {
    const payloadStart = markerStart + marker.length;
    const header = readHeader(payloadStart);
    let searchFrom = payloadStart;
    if (header !== null && header.jsonStart >= jsonFrontier && isJsonContainerStart(text.charCodeAt(header.jsonStart))) {
      const scan = scanJsonValue({ text, start: header.jsonStart });
      jsonFrontier = Math.max(jsonFrontier, scan.end);
      if (scan.ok) searchFrom = scan.end;
    }
    const next = text.indexOf(marker, searchFrom);
    const end = next < 0 ? text.length : next;
    if (header !== null) segments.push({ markerStart, end, ...header });
    markerStart = next;
  }
  return segments;
}

function isJsonContainerStart(code: number): boolean {
  return code === 0x7b /* { */ || code === 0x5b; /* [ */
}
