// A small HTTP client for the fleet's REST API, used by the CLI commands.
import { CLI } from './cli-name.js';
import { existsSync, readFileSync } from 'node:fs';
import type { z } from 'zod';
import { DEV_STATE_FILE } from './dev-state.js';

/** The API refused a request: its status, error code and message, and the path asked for (so a
 * hint can name the run the request was about). */
export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

/** The fleet could not be reached (connection refused, DNS, reset): no HTTP answer at all. */
export class ApiUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach the API at ${url}: ${cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause)}`);
  }
}

/** The API answered 2xx with a body the CLI cannot read: the fleet and the CLI disagree on a shape. */
export class ApiResponseInvalidError extends Error {}

/** --api URL, else BUILDFLEET_API_URL, else the local dev fleet's state file. */
export function resolveApiUrl(flag: string | undefined): string {
  if (flag) return flag.replace(/\/$/, '');
  if (process.env.BUILDFLEET_API_URL) return process.env.BUILDFLEET_API_URL.replace(/\/$/, '');
  if (existsSync(DEV_STATE_FILE)) {
    const state = JSON.parse(readFileSync(DEV_STATE_FILE, 'utf8')) as { apiUrl?: string };
    if (state.apiUrl) return state.apiUrl;
  }
  throw new Error(`No fleet to talk to: start one with \`${CLI} dev\`, or pass --api URL (or set BUILDFLEET_API_URL).`);
}

export function resolveApiKey(flag: string | undefined): string | undefined {
  if (flag) return flag;
  if (process.env.BUILDFLEET_API_KEY) return process.env.BUILDFLEET_API_KEY;
  if (existsSync(DEV_STATE_FILE)) {
    const state = JSON.parse(readFileSync(DEV_STATE_FILE, 'utf8')) as { devKey?: string };
    return state.devKey;
  }
  return undefined;
}

export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly apiKey?: string,
  ) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}), ...extra };
  }

  /** fetch, with a failure to connect turned into ApiUnreachableError (exit code `unavailable`). */
  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetch(`${this.baseUrl}${path}`, init);
    } catch (error) {
      throw new ApiUnreachableError(this.baseUrl, error);
    }
  }

  async request<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
    const response = await this.fetch(path, {
      method,
      headers: this.headers(body === undefined ? extraHeaders : { 'content-type': 'application/json', ...extraHeaders }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    // A proxy in front of the fleet may answer an error page instead of the API's JSON.
    let parsed: unknown = null;
    try {
      parsed = text ? (JSON.parse(text) as unknown) : null;
    } catch {
      if (response.ok) throw new ApiResponseInvalidError(`${method} ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    if (!response.ok) {
      const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
      throw new ApiClientError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? text.slice(0, 500), path);
    }
    return parsed as T;
  }

  /** A request whose answer is validated against `schema`: the API is a boundary like any other. */
  async requestValid<Schema extends z.ZodType>({
    method = 'GET',
    path,
    body,
    schema,
  }: {
    method?: string;
    path: string;
    body?: unknown;
    schema: Schema;
  }): Promise<z.infer<Schema>> {
    const answer = await this.request<unknown>(method, path, body);
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ApiResponseInvalidError(
        `${method} ${path} answered a body the CLI cannot read: ${issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
      );
    }
    return parsed.data;
  }
}
