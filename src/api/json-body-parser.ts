// The only body parser the API has: JSON, through Fastify's prototype-poisoning-safe parser. An
// empty body parses to `undefined` so each route's schema decides (a missing body is "required"
// where one is needed and fine on POST /cancel), and a parse failure names what is wrong with
// the JSON instead of Fastify's bare "Body is not valid JSON".
import type { FastifyInstance } from 'fastify';
import { apiErrors } from './api-errors.js';

function describeJsonFailure(body: string): string {
  try {
    JSON.parse(body);
    // Valid JSON that the safe parser still refused: a prototype-poisoning key.
    return 'body: Invalid JSON: "__proto__" and "constructor.prototype" keys are not allowed';
  } catch (error) {
    return `body: Invalid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Replaces every content-type parser with the JSON one; other media types answer 415. */
export function installJsonBodyParser({ app, bodyLimit }: { app: FastifyInstance; bodyLimit: number }): void {
  const parseSafely = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
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
