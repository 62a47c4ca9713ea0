// Every environment variable buildfleet reads, in one zod schema parsed once at boot and frozen.
// The README's "Configuration" table documents each one; a bad value stops the process with the
// variable named, before any connection is made.
import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

export const configSchema = z.object({
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  BUILDFLEET_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,32}$/, 'letters, digits, _ and - only')
    .default('bf'),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_BASE_URL: z.string().url().optional(),
  BUILDFLEET_MODEL: z.string().min(1).default('claude-sonnet-4-6'),
  BUILDFLEET_MAX_TOKENS: positiveInt.default(4096),
  BUILDFLEET_MAX_TOKENS_CEILING: positiveInt.default(16384),
  BUILDFLEET_MODEL_TIMEOUT_MS: positiveInt.default(60_000),
  BUILDFLEET_MAX_TURNS: positiveInt.default(40),
  BUILDFLEET_TOKEN_BUDGET: positiveInt.default(400_000),
  BUILDFLEET_API_HOST: z.string().default('127.0.0.1'),
  BUILDFLEET_API_PORT: port.default(8080),
  BUILDFLEET_PUBLIC_URL: z.string().url().optional(),
  BUILDFLEET_METRICS_PORT: port.default(0),
  BUILDFLEET_MODEL_CONCURRENCY: positiveInt.default(8),
  BUILDFLEET_TOOL_CONCURRENCY: positiveInt.default(16),
  BUILDFLEET_SHUTDOWN_TIMEOUT_MS: positiveInt.default(25_000),
  BUILDFLEET_CHROMIUM_PATH: z.string().optional(),
  BUILDFLEET_FETCH_ALLOWLIST: z.string().default(''),
  BUILDFLEET_TEXT_RECOVERY: booleanFlag.default(true),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
});

export type Config = Readonly<z.infer<typeof configSchema>>;

export class ConfigError extends Error {
  readonly code = 'config_invalid';
}

/** Parses an environment (process.env by default) into a frozen Config, naming every bad variable. */
export function loadConfig(environment: NodeJS.ProcessEnv = process.env): Config {
  const relevant: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = environment[key];
    if (value !== undefined && value !== '') relevant[key] = value;
  }
  const parsed = configSchema.safeParse(relevant);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid environment: ${problems.join('; ')}`);
  }
  return Object.freeze(parsed.data);
}
