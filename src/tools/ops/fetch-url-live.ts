// fetch_url_live: what a visitor's browser would get from a URL right now (status, title, text).
// A non-2xx status is an observation, not a tool failure: a maintenance page is worth seeing.
//
// The upstream response passes size → content type → strict parse first (validate-tool-output.ts).
// What is expected is inferred from the URL, since the input schema is shared with the simulator
// and stays as it is: a 2xx page of the fleet's own sites (under <public base>/sites/) must be
// text/html; anything else may be text/html, text/plain or application/json, the last parsed
// strictly (truncated JSON, or an error inside a success wrapper, is an invalid output).
import { z } from 'zod';
import { fetchPolicyFor } from '../http/check-fetch-target.js';
import { FETCH_MAX_BYTES, fetchWithLimits } from '../http/fetch-with-limits.js';
import { decodeHtmlEntities } from '../html/decode-html-entities.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { validateUpstreamResponse } from '../output/validate-tool-output.js';
import { defineTool, type ToolContext } from '../tool-types.js';

const BODY_EXCERPT_CHARACTERS = 4000;
const ACCEPTED_TYPES = ['text/html', 'text/plain', 'application/json'] as const;
const OWN_SITE_TYPES = ['text/html'] as const;

function titleOf(html: string): string | null {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  if (!match) return null;
  const title = decodeHtmlEntities(match[1] ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return title.length > 0 ? title.slice(0, 300) : null;
}

/** Whether a URL is one of the fleet's own deployed or published sites. */
export function isOwnSiteUrl(url: string, publicBaseUrl: string): boolean {
  try {
    const target = new URL(url);
    const base = new URL(publicBaseUrl);
    const sitesPath = `${base.pathname.replace(/\/+$/, '')}/sites/`;
    return target.origin === base.origin && target.pathname.startsWith(sitesPath);
  } catch {
    return false;
  }
}

/** The media types a response to this call may carry. */
function expectedTypes(finalUrl: string, status: number, context: Pick<ToolContext, 'publicBaseUrl'>): readonly string[] {
  // Error pages of the site server (a 404 as JSON) are observations like any other.
  const ownPage = status >= 200 && status <= 299 && isOwnSiteUrl(finalUrl, context.publicBaseUrl);
  return ownPage ? OWN_SITE_TYPES : ACCEPTED_TYPES;
}

export const fetchUrlLiveTool = defineTool({
  name: 'fetch_url_live',
  description: toolDescriptions.fetch_url_live,
  inputSchema: toolInputSchemas.fetch_url_live,
  output: {
    maxCharacters: FETCH_MAX_BYTES,
    contentTypes: ACCEPTED_TYPES,
    schema: z.strictObject({
      url: z.string(),
      final_url: z.string(),
      status: z.int().min(100).max(599),
      content_type: z.string(),
      bytes: z.int().min(0),
      truncated: z.literal(false),
      title: z.string().nullable(),
      body_excerpt: z.string().max(BODY_EXCERPT_CHARACTERS),
    }),
    invariants: [
      {
        name: 'content_type_accepted',
        check: (output) =>
          output.bytes === 0 ||
          (ACCEPTED_TYPES as readonly string[]).includes(output.content_type) ||
          `${quoteUntrusted(output.content_type, { maxCharacters: 100 })} was not accepted`,
      },
    ],
    mode: 'degrade',
    // A public URL reads the same for every run.
    lastKnownGood: 'fleet_wide',
  },
  writes: false,
  idempotent: true,
  async execute(input, context) {
    const response = await fetchWithLimits({ url: input.url, policy: fetchPolicyFor(context), signal: context.signal, maxBytes: FETCH_MAX_BYTES });
    const body = validateUpstreamResponse({
      response,
      expect: { contentTypes: expectedTypes(response.finalUrl, response.status, context), maxBytes: FETCH_MAX_BYTES, allowEmpty: true },
    });
    const text = body.kind === 'html' || body.kind === 'text' || body.kind === 'json' ? body.text : '';
    return {
      url: input.url,
      final_url: response.finalUrl,
      status: response.status,
      content_type: response.contentType,
      bytes: response.body.length,
      truncated: false,
      title: body.kind === 'html' ? titleOf(text) : null,
      body_excerpt: text.slice(0, BODY_EXCERPT_CHARACTERS),
    };
  },
});

/** What the tool's entry in src/domain/site-builder-tools.ts names: the tool worker imports it. */
export default fetchUrlLiveTool;
