// A provider's endpoint: every client here speaks HTTP (the Anthropic, Bedrock, Vertex and openai
// SDKs all call fetch, which refuses another scheme only when a request is made: Node's fetch
// rejects `ftp:` with "fetch failed" (cause "unknown scheme"), which the SDKs throw as a connection
// error, retried as `transient` until the run's attempts run out). z.url() alone takes any
// scheme (`ftp://…`, `file:`), so a typo would stop no process at boot.
import { z } from 'zod';

/** An http: or https: URL. */
export const httpUrlSchema = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });
