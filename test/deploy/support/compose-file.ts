// Reads docker-compose.yml as Compose would for a plain `docker compose up`: YAML merge keys
// resolved, and every ${VAR:-default} / ${VAR-default} / ${VAR} interpolated from an empty
// environment (so defaults apply). readComposeFiles adds what `docker compose -f a.yml -f b.yml`
// does: `extends` resolved, and the files merged by the Compose specification's merge rules.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping => typeof value === 'object' && value !== null && !Array.isArray(value);

// Compose spec, merge.md: these sequences are replaced by the later file, not merged.
const REPLACED_SEQUENCES = new Set(['command', 'entrypoint', 'test']);
// Sequences of mounts, merged by their target path.
const MOUNT_SEQUENCES = new Set(['volumes', 'devices', 'secrets', 'configs']);
// Fields that may be written as a list and merge as a mapping.
const MAPPING_FIELDS = new Set(['environment', 'labels', 'depends_on', 'networks', 'extra_hosts']);

/** A field written in its short list form, as the mapping it stands for. */
function asMapping(field: string, value: unknown): unknown {
  if (!Array.isArray(value) || !MAPPING_FIELDS.has(field)) return value;
  if (field === 'depends_on') return Object.fromEntries(value.map((name) => [String(name), { condition: 'service_started' }]));
  if (field === 'networks') return Object.fromEntries(value.map((name) => [String(name), null]));
  return Object.fromEntries(
    value.map((entry) => {
      const text = String(entry);
      const separator = text.search(/[=:]/);
      return separator < 0 ? [text, null] : [text.slice(0, separator), text.slice(separator + 1)];
    }),
  );
}

function mountTarget(mount: unknown): string {
  if (isMapping(mount)) return String(mount.target ?? mount.source ?? JSON.stringify(mount));
  const parts = String(mount).split(':');
  return parts.length > 1 ? (parts[1] ?? '') : (parts[0] ?? '');
}

/** `override` laid over `base` field by field, as Compose merges two files or an `extends`. */
function mergeField(field: string, base: unknown, override: unknown): unknown {
  const [before, after] = [asMapping(field, base), asMapping(field, override)];
  if (before === undefined) return after;
  if (after === undefined) return before;
  // `sites-data:` (null) over a volume's settings leaves them; over a scalar it clears it.
  if (after === null) return isMapping(before) ? before : null;
  if (isMapping(before) && isMapping(after)) {
    const merged: Mapping = { ...before };
    for (const [key, value] of Object.entries(after)) merged[key] = key in before ? mergeField(key, before[key], value) : value;
    return merged;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    if (REPLACED_SEQUENCES.has(field)) return after;
    if (MOUNT_SEQUENCES.has(field)) {
      const byTarget = new Map(before.map((mount) => [mountTarget(mount), mount]));
      for (const mount of after) byTarget.set(mountTarget(mount), mount);
      return [...byTarget.values()];
    }
    const seen = new Set(before.map((item) => JSON.stringify(item)));
    return [...before, ...after.filter((item) => !seen.has(JSON.stringify(item)))];
  }
  return after;
}

/** The services of one file with every `extends` resolved (recursively, across files). Compose
 * documents that depends_on is never inherited through `extends`, so a service must declare its own. */
function resolveExtends(path: string, services: Record<string, Mapping>, name: string, seen: string[] = []): Mapping {
  const key = `${path}#${name}`;
  if (seen.includes(key)) throw new Error(`extends cycle: ${[...seen, key].join(' -> ')}`);
  const service = services[name];
  if (!service) throw new Error(`${path} has no service ${name}`);
  const extended = service.extends as { file?: string; service: string } | string | undefined;
  if (extended === undefined) return service;
  const reference = typeof extended === 'string' ? { service: extended } : extended;
  const basePath = reference.file ? resolve(dirname(path), reference.file) : path;
  const baseServices = basePath === path ? services : parseServices(basePath);
  const { depends_on: _inheritedNever, ...base } = resolveExtends(basePath, baseServices, reference.service, [...seen, key]);
  const { extends: _resolved, ...local } = service;
  return mergeField('service', base, local) as Mapping;
}

function parseServices(path: string): Record<string, Mapping> {
  return ((parse(readFileSync(path, 'utf8'), { merge: true }) as { services?: Record<string, Mapping> }).services ?? {});
}

/** `docker compose -f paths[0] -f paths[1] …`: each file's `extends` resolved, the files merged in
 * order (services and top-level sections by name, fields by Compose's merge rules), then variables
 * interpolated from `environment`. */
export function readComposeFiles(paths: string[], environment: Record<string, string> = {}): ComposeFile {
  let merged: Mapping = {};
  for (const path of paths) {
    const file = parse(readFileSync(path, 'utf8'), { merge: true }) as Mapping;
    const services = (file.services ?? {}) as Record<string, Mapping>;
    const resolved = Object.fromEntries(Object.keys(services).map((name) => [name, resolveExtends(path, services, name)]));
    const layer = Object.fromEntries(Object.entries(file).filter(([key]) => !key.startsWith('x-')));
    merged = mergeField('project', merged, { ...layer, services: resolved }) as Mapping;
  }
  return interpolate(merged, environment) as ComposeFile;
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
