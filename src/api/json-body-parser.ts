// The only body parser the API has: JSON, through Fastify's prototype-poisoning-safe parser. An
// empty body parses to `undefined` so each route's schema decides (a missing body is "required"
// where one is needed and fine on POST /cancel), and a parse failure names what is wrong with
// the JSON instead of Fastify's bare "Body is not valid JSON".
//
// JSON on the wire is UTF-8 without a byte order mark (RFC 8259 §8.1: "JSON text exchanged
// between systems that are not part of a closed ecosystem MUST be encoded using UTF-8";
// "Implementations MUST NOT add a byte order mark"). The body is read as bytes and decoded
// strictly, so a stray byte is refused instead of becoming U+FFFD in a stored prompt:
//   charset other than utf-8 in Content-Type → 415 unsupported_charset
//   a byte order mark, or bytes that are not UTF-8 → 400 invalid_body_encoding
import type { FastifyInstance } from 'fastify';
import { apiErrors } from './api-errors.js';

const UTF8_BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);
/** The labels of UTF-8 a client may name (the WHATWG Encoding Standard's common ones). */
const UTF8_LABELS = new Set(['utf-8', 'utf8']);
// fatal: invalid bytes throw instead of decoding to U+FFFD; ignoreBOM: a BOM is kept, not
// silently dropped (it is refused before decoding anyway).
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function describeJsonFailure(body: string): string {
  try {
    JSON.parse(body);
    // Valid JSON that the safe parser still refused: a prototype-poisoning key.
    return 'body: Invalid JSON: "__proto__" and "constructor.prototype" keys are not allowed';
  } catch (error) {
    return `body: Invalid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The `charset` parameter of a Content-Type, lower-cased and unquoted; null when absent. */
export function charsetOf(contentType: string | undefined): string | null {
  if (!contentType) return null;
  for (const parameter of contentType.split(';').slice(1)) {
    const separator = parameter.indexOf('=');
    if (separator === -1) continue;
    if (parameter.slice(0, separator).trim().toLowerCase() !== 'charset') continue;
    return parameter
      .slice(separator + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return null;
}

/** Replaces every content-type parser with the JSON one; other media types answer 415. */
export function installJsonBodyParser({ app, bodyLimit }: { app: FastifyInstance; bodyLimit: number }): void {
  const parseSafely = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, (request, body, done) => {
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== null && !UTF8_LABELS.has(charset)) {
      done(
        apiErrors.unsupportedCharset(`Send the body as UTF-8 JSON: charset ${JSON.stringify(charset.slice(0, 40))} is not supported (RFC 8259 §8.1).`),
        undefined,
      );
      return;
    }
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    if (bytes.subarray(0, UTF8_BYTE_ORDER_MARK.length).equals(UTF8_BYTE_ORDER_MARK)) {
      done(apiErrors.invalidBodyEncoding('The body starts with a byte order mark: send JSON without one (RFC 8259 §8.1).'), undefined);
      return;
    }
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      done(apiErrors.invalidBodyEncoding('The body is not valid UTF-8: send JSON encoded as UTF-8 (RFC 8259 §8.1).'), undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseSafely(request, text, (error, parsed) => {
      if (error) done(apiErrors.invalidBody(describeJsonFailure(text)), undefined);
      else done(null, parsed);
    });
  });
}
