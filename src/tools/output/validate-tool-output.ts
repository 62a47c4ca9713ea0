// The one validation pipeline for tool outputs, in a fixed order:
//   size → content type → strict parse → schema → invariants
// Tools that read HTTP run the raw upstream response through the first three steps
// (validateUpstreamResponse) before they build anything from it, so nothing — least of all a
// write — is ever built from a body that failed; every tool's final output then goes through the
// whole pipeline (validateToolOutput) before the model sees it. Every failure is a
// ToolOutputInvalid with a reason from TOOL_OUTPUT_INVALID_REASONS.
//
// The messages reach the model (inside its error result) and name what the upstream sent: its URL,
// its Content-Type, the parser's complaint, which repeats the start of the body. Each of those is
// quoted as data (quote-untrusted.ts); a reason's detail is only ever a well-formed media type or
// a schema path (ToolOutputInvalid makes it safe), never upstream text.
import type { z } from 'zod';
import { maxCharactersOf, type InvariantContext, type ToolOutputContract } from '../../domain/tool-output-contract.js';
import { findErrorInSuccessWrapper } from './find-error-in-success-wrapper.js';
import { svgDocumentProblem } from './parse-svg-document.js';
import { ToolOutputInvalid } from './tool-output-invalid.js';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';

/** The parts of an HTTP response the pipeline judges (fetchWithLimits' LimitedResponse fits). */
export interface UpstreamResponse {
  status: number;
  /** Lower-cased media type without parameters, '' when absent. */
  contentType: string;
  body: Buffer;
  /** True when the body was longer than the bytes read. */
  truncated: boolean;
  finalUrl?: string;
}

export interface UpstreamExpectation {
  /** Accepted media types; `image/*` matches any image type. */
  contentTypes: readonly string[];
  /** The size limit the body was read with. */
  maxBytes: number;
  /** An empty body (204, a bare 404) passes without a content type. Default false. */
  allowEmpty?: boolean;
  /** Only the first bytes were read on purpose (a reachability probe): truncation is not a size
   * failure, and the parse step checks what a prefix can show (signatures, the <svg> start). */
  prefixOnly?: boolean;
  /** For upstreams with a known JSON shape: the parsed body must match it. */
  jsonSchema?: z.ZodType;
}

export type ValidatedBody =
  | { kind: 'empty' }
  | { kind: 'json'; text: string; value: unknown }
  | { kind: 'html'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'svg'; text: string }
  | { kind: 'image'; contentType: string };

const IMAGE_SIGNATURES: Record<string, (body: Buffer) => boolean> = {
  'image/png': (body) => body.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (body) => body[0] === 0xff && body[1] === 0xd8 && body[2] === 0xff,
  'image/gif': (body) => ['GIF87a', 'GIF89a'].includes(body.toString('latin1', 0, 6)),
  'image/webp': (body) => body.toString('latin1', 0, 4) === 'RIFF' && body.toString('latin1', 8, 12) === 'WEBP',
  'image/x-icon': (body) => body[0] === 0 && body[1] === 0 && body[2] === 1 && body[3] === 0,
  'image/vnd.microsoft.icon': (body) => body[0] === 0 && body[1] === 0 && body[2] === 1 && body[3] === 0,
  'image/bmp': (body) => body.toString('latin1', 0, 2) === 'BM',
  'image/avif': (body) => body.toString('latin1', 4, 8) === 'ftyp',
};

/** Whether a media type matches one accepted pattern (`image/*`, or `application/json`, which
 * also accepts `+json` types). */
export function mediaTypeMatches(type: string, pattern: string): boolean {
  if (pattern.endsWith('/*')) return type.startsWith(pattern.slice(0, -1));
  if (pattern === 'application/json' && /^application\/[\w.-]+\+json$/.test(type)) return true;
  return type === pattern;
}

function decodeUtf8(body: Buffer, fatal: boolean): string | null {
  try {
    return new TextDecoder('utf-8', { fatal }).decode(body);
  } catch {
    return null;
  }
}

/** RFC 9110 §8.3.1: `type "/" subtype`, both tokens (tchar). */
const MEDIA_TYPE = /^[a-z0-9!#$%&'*+.^_`|~-]+\/[a-z0-9!#$%&'*+.^_`|~-]+$/;

/** The media type as a reason's detail: itself when it is one (and short), else `malformed`. */
function mediaTypeDetail(type: string): string {
  return type.length <= 100 && MEDIA_TYPE.test(type) ? type : 'malformed';
}

function schemaPath(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0 ? '(root)' : path.map(String).join('.');
}

/** Parses JSON text strictly and applies the success-wrapper check and an optional schema. */
function strictJson(text: string, where: string, schema?: z.ZodType): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // The parser's message repeats the start of the body: upstream text.
    throw new ToolOutputInvalid('invalid_json', `${where} is not valid JSON: ${quoteUntrusted(error instanceof Error ? error.message : String(error))}.`);
  }
  const wrapped = findErrorInSuccessWrapper(value);
  if (wrapped) throw new ToolOutputInvalid('error_in_success_wrapper', `${where}: ${wrapped}.`);
  if (schema) {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = schemaPath(issue?.path ?? []);
      // The path and the issue can name keys of the upstream's JSON.
      throw new ToolOutputInvalid(
        `schema_invalid:${path}`,
        `${where} does not match the expected shape at ${quoteUntrusted(path, { maxCharacters: 100 })}: ${quoteUntrusted(issue?.message ?? 'invalid')}.`,
      );
    }
  }
  return value;
}

/** Size → content type → strict parse of a raw upstream response; returns the parsed body or
 * throws ToolOutputInvalid. The HTTP status is the caller's to judge. */
export function validateUpstreamResponse({ response, expect }: { response: UpstreamResponse; expect: UpstreamExpectation }): ValidatedBody {
  const where = response.finalUrl === undefined ? 'the upstream response' : quoteUntrusted(response.finalUrl);
  // 1. Size.
  if ((response.truncated && !expect.prefixOnly) || response.body.length > expect.maxBytes) {
    throw new ToolOutputInvalid('tool_output_too_large', `${where} is larger than ${expect.maxBytes} bytes.`);
  }
  // 2. Content type.
  const type = response.contentType;
  if (response.body.length === 0 && expect.allowEmpty) return { kind: 'empty' };
  if (type === '') throw new ToolOutputInvalid('missing_content_type', `${where} has no Content-Type.`);
  // A header that is not a media type matches nothing (`image/*` would otherwise accept
  // `image/<anything>`), and only a well-formed type is ever repeated unquoted below.
  if (mediaTypeDetail(type) === 'malformed' || !expect.contentTypes.some((pattern) => mediaTypeMatches(type, pattern))) {
    throw new ToolOutputInvalid(
      `unexpected_content_type:${mediaTypeDetail(type)}`,
      `${where} has Content-Type ${quoteUntrusted(type, { maxCharacters: 100 })}, but ${expect.contentTypes.join(' or ')} was expected.`,
    );
  }
  // 3. Strict parse.
  const prefix = Boolean(expect.prefixOnly);
  if (type === 'application/json' || type.endsWith('+json')) {
    if (prefix && response.truncated) return { kind: 'json', text: '', value: undefined };
    const text = decodeUtf8(response.body, true);
    if (text === null) throw new ToolOutputInvalid('invalid_json', `${where} is declared JSON but is not valid UTF-8.`);
    return { kind: 'json', text, value: strictJson(text, where, expect.jsonSchema) };
  }
  if (type === 'image/svg+xml') {
    const text = decodeUtf8(response.body, !prefix);
    if (text === null) throw new ToolOutputInvalid('invalid_svg', `${where} is declared SVG but is not valid UTF-8.`);
    if (prefix) {
      // A probe reads the start only: the first element must be an <svg>.
      if (response.body.length > 0 && !/^(?:\ufeff)?\s*(?:<\?[\s\S]*?\?>\s*|<!--[\s\S]*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg[\s>]/i.test(text)) {
        throw new ToolOutputInvalid('invalid_svg', `${where} does not start an <svg> document.`);
      }
      return { kind: 'svg', text };
    }
    const problem = svgDocumentProblem(text.replace(/^\ufeff/, ''));
    // The problem can name the body's own tags.
    if (problem) throw new ToolOutputInvalid('invalid_svg', `${where} is not a well-formed SVG document: ${quoteUntrusted(problem, { maxCharacters: 200 })}.`);
    return { kind: 'svg', text };
  }
  if (type.startsWith('image/')) {
    if (response.body.length === 0) {
      if (prefix) return { kind: 'image', contentType: type };
      throw new ToolOutputInvalid('invalid_image', `${where} is an empty ${type}.`);
    }
    const signature = IMAGE_SIGNATURES[type];
    if (signature && !signature(response.body)) {
      throw new ToolOutputInvalid('invalid_image', `${where} is declared ${type} but its bytes are not a ${type.slice(6).toUpperCase()} image.`);
    }
    return { kind: 'image', contentType: type };
  }
  if (type === 'text/html' || type === 'application/xhtml+xml') {
    const text = decodeUtf8(response.body, !prefix);
    if (text === null) throw new ToolOutputInvalid('invalid_html', `${where} is declared HTML but is not valid UTF-8.`);
    if (!/<[a-z!]/i.test(text)) throw new ToolOutputInvalid('invalid_html', `${where} is declared HTML but holds no markup.`);
    return { kind: 'html', text };
  }
  const text = decodeUtf8(response.body, !prefix);
  if (text === null) throw new ToolOutputInvalid('invalid_text', `${where} is declared ${type} but is not valid UTF-8.`);
  return { kind: 'text', text };
}

/** Size → strict parse → schema → invariants of a tool's final output. Returns the value as the
 * model will see it (the JSON round trip), or throws ToolOutputInvalid. */
export function validateToolOutput({ output, contract, context }: { output: unknown; contract: ToolOutputContract; context: InvariantContext }): unknown {
  let json: string | undefined;
  try {
    json = JSON.stringify(output);
  } catch (error) {
    throw new ToolOutputInvalid('invalid_json', `The output cannot be serialised as JSON (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (json === undefined) throw new ToolOutputInvalid('invalid_json', 'The output is not a JSON value.');
  // 1. Size.
  const max = maxCharactersOf(contract);
  if (json.length > max) throw new ToolOutputInvalid('tool_output_too_large', `The output is ${json.length} characters; at most ${max} are allowed.`);
  // 2. Content type: the final output is always JSON; media types were checked upstream.
  // 3. Strict parse, through the same JSON the model will read.
  const value = strictJson(json, 'The output');
  // 4. Schema.
  const parsed = contract.schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = schemaPath(issue?.path ?? []);
    throw new ToolOutputInvalid(`schema_invalid:${path}`, `The output does not match its schema at ${path}: ${issue?.message ?? 'invalid'}.`);
  }
  // 5. Invariants.
  for (const invariant of contract.invariants ?? []) {
    const verdict = invariant.check(parsed.data, context);
    if (verdict !== true) {
      throw new ToolOutputInvalid(
        `invariant:${invariant.name}`,
        `The output breaks the invariant ${invariant.name}${typeof verdict === 'string' ? `: ${verdict}` : ''}.`,
      );
    }
  }
  return value;
}
