// Reads docker-compose.yml as Compose would for a plain `docker compose up`: YAML merge keys
// resolved, and every ${VAR:-default} / ${VAR-default} / ${VAR} interpolated from an empty
// environment (so defaults apply).
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface ComposeService {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string | number | boolean | null>;
  healthcheck?: { test?: string[] | string; interval?: string };
  restart?: string;
  stop_grace_period?: string;
  container_name?: string;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  networks?: Record<string, { aliases?: string[] } | null>;
  read_only?: boolean;
  cap_drop?: string[];
  [field: string]: unknown;
}

export interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

function interpolate(value: unknown, environment: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Z0-9_]+)(?::?-([^}]*))?\}/g, (_match, name: string, fallback: string | undefined) => environment[name] ?? fallback ?? '');
  }
  if (Array.isArray(value)) return value.map((item) => interpolate(item, environment));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolate(item, environment)]));
  }
  return value;
}

/** docker-compose.yml with merge keys resolved and variables interpolated from `environment`. */
export function readComposeFile(path: string, environment: Record<string, string> = {}): ComposeFile {
  const raw = parse(readFileSync(path, 'utf8'), { merge: true }) as ComposeFile;
  return interpolate(raw, environment) as ComposeFile;
}

/** Compose durations such as `30s`, `1m30s`, `500ms`, in milliseconds. */
export function durationMs(duration: string): number {
  let total = 0;
  const pattern = /(\d+(?:\.\d+)?)(ms|us|h|m|s)/g;
  let matched = '';
  for (const [whole, amount, unit] of duration.matchAll(pattern)) {
    matched += whole;
    const factor = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001 }[unit as 'h' | 'm' | 's' | 'ms' | 'us'];
    total += Number(amount) * factor;
  }
  if (matched !== duration) throw new Error(`not a compose duration: ${duration}`);
  return total;
}
