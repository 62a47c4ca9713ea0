// A small HTTP client for the fleet's REST API, used by the CLI commands.
import { existsSync, readFileSync } from 'node:fs';
import { DEV_STATE_FILE } from './dev-state.js';

export class ApiClientError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** --api URL, else BUILDFLEET_API_URL, else the local dev fleet's state file. */
export function resolveApiUrl(flag: string | undefined): string {
  if (flag) return flag.replace(/\/$/, '');
  if (process.env.BUILDFLEET_API_URL) return process.env.BUILDFLEET_API_URL.replace(/\/$/, '');
  if (existsSync(DEV_STATE_FILE)) {
    const state = JSON.parse(readFileSync(DEV_STATE_FILE, 'utf8')) as { apiUrl?: string };
    if (state.apiUrl) return state.apiUrl;
  }
  throw new Error('No fleet to talk to: start one with `buildfleet dev`, or pass --api URL (or set BUILDFLEET_API_URL).');
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

  async request<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: this.headers(body === undefined ? extraHeaders : { 'content-type': 'application/json', ...extraHeaders }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : null;
    if (!response.ok) {
      const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
      throw new ApiClientError(response.status, error?.code ?? `http_${response.status}`, error?.message ?? text);
    }
    return parsed as T;
  }
}
