// Secret redaction by value: every configured secret (environment variables named like keys,
// tokens, secrets or passwords, and the password in REDIS_URL) plus anything shaped like an API
// key or a bearer token is replaced before it reaches a log line, a run event or Redis — also
// when it hides inside an error message or a URL.

const SECRET_NAME = /(KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL)/i;
const MIN_SECRET_LENGTH = 8;
const REPLACEMENT = '[redacted]';
// Shapes of secrets that were never configured here: Anthropic keys, buildfleet keys, bearer
// tokens in header dumps.
/** Matches wherever any of SECRET_SHAPES could: a cheap pre-check. */
const SHAPE_HINT = /sk-ant-|bf_|bearer/i;
const SECRET_SHAPES = [/sk-ant-[A-Za-z0-9_-]{8,}/g, /\bbf_[A-Za-z0-9_-]{16,}/g, /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi];

const secrets = new Set<string>();

/** Registers the secret values of an environment; returns how many are known now. */
export function registerSecretsFromEnvironment(environment: NodeJS.ProcessEnv = process.env): number {
  for (const [name, value] of Object.entries(environment)) {
    if (!value) continue;
    if (SECRET_NAME.test(name)) registerSecret(value);
    if (/_URL$/.test(name)) for (const password of urlPasswordsOf(value)) registerSecret(password);
    // A Redis Cluster's seeds: comma-separated URLs, each of which may carry the password.
    if (name === 'BUILDFLEET_REDIS_CLUSTER_NODES')
      for (const seed of value.split(',')) for (const password of urlPasswordsOf(seed.trim())) registerSecret(password);
  }
  return secrets.size;
}

/** The password a URL carries, as written in it (percent-encoded, as the URL's text shows it) and
 * decoded (as a client sends it); none when the text is no URL or has no password. */
function urlPasswordsOf(value: string): string[] {
  let password: string;
  try {
    password = new URL(value).password;
  } catch {
    return [];
  }
  if (password === '') return [];
  try {
    return [...new Set([password, decodeURIComponent(password)])];
  } catch {
    // A `%` that starts no escape: the password is what the text says.
    return [password];
  }
}

/** A URL fit to print: its password replaced whatever its length (`redis://:[redacted]@host:6379`,
 * the user name kept) and any known secret elsewhere in it redacted. Text that is no URL is not
 * shown at all: where its password is cannot be told. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(a URL that does not parse)';
  }
  if (parsed.password === '') return redactText(url);
  // Built by hand: the URL setter would percent-encode the brackets of the replacement.
  return redactText(`${parsed.protocol}//${parsed.username}:${REPLACEMENT}@${parsed.host}${parsed.pathname}${parsed.search}${parsed.hash}`);
}

export function registerSecret(value: string): void {
  if (value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

/** The text with every known secret and secret-shaped token replaced. */
export function redactText(text: string): string {
  let result = text;
  for (const secret of secrets) if (result.includes(secret)) result = result.split(secret).join(REPLACEMENT);
  // One scan for what every shape starts with; most text (pages, tool results) has none of them,
  // and then the three replacing scans are skipped.
  if (!SHAPE_HINT.test(result)) return result;
  for (const shape of SECRET_SHAPES) {
    shape.lastIndex = 0;
    result = result.replace(shape, (match, bearer: unknown) =>
      typeof bearer === 'string' && /^Bearer/i.test(bearer) ? `${bearer}${REPLACEMENT}` : REPLACEMENT,
    );
  }
  return result;
}

/** A deep copy with every string redacted (objects from JSON: plain values, arrays, objects). */
export function redactValue<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return redactText(value) as T;
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1)) as T;
  if (value instanceof Error) return redactValue({ name: value.name, message: value.message, stack: value.stack }, depth + 1) as T;
  // Only plain data is copied: a request, socket or stream (Fastify hands pino those) is left to
  // pino's serializers — walking one costs seconds and can touch getters with side effects.
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = redactValue(item, depth + 1);
  return copy as T;
}
