// `buildfleet experiment providers --runs N [--formats a,b]`: the tiers experiment per provider
// profile and per open-model text format (issue #19). Each profile is a provider declared in the
// in-process fleet's BUILDFLEET_PROVIDERS, pointing at the simulator over loopback:
//   - `anthropic`: the Messages API, its models drifting into text calls by the simulator's table;
//   - `bedrock`, `vertex`: Claude through Bedrock's InvokeModelWithResponseStream and Vertex's
//     streamRawPredict (the SDKs' own clients), drifting by the same table;
//   - `sim-native`: OpenAI-compatible chat completions with native tool_calls (text calls off);
//   - `sim-<format>`: OpenAI-compatible, a server without a tool parser (`x-buildfleet-tool-parser:
//     none`, which refuses tool_choice auto as vLLM does) and a provider declared `toolParser: false`,
//     which sends `none` on turns left to the model: every call the model chooses to make arrives as
//     text in that format (format pinned);
//   - `sim-parser-leak`: a server with a parser that misses every call of an auto turn, so it leaks
//     into content (text calls always, `tool_call_tag`).
// Every arm offers the tiered tool lists. Recovery is on in every arm, and off in a comparison arm
// for anthropic, native and the first text format. Counted as experiment-arm-tally.ts says, plus
// each text arm's parse-mode check: its recovered calls' parse_mode is TEXT_FORMAT_PARSE_MODES[F].
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMPLICIT_PROVIDER } from '../domain/provider-declarations.js';
import { startInProcessFleet } from '../dev/in-process-fleet.js';
import { freePort, startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';
import { OPEN_MODEL_TEXT_FORMATS, TEXT_FORMAT_PARSE_MODES } from '../sim/text-tool-call-format.js';
import { armTallyHooks, formatArmTable, formatCounts, newArmTally, verifiedShare, type ArmTally } from './experiment-arm-tally.js';
import { runArmBuilds } from './experiment-arm-builds.js';
import { UsageError } from './usage-error.js';

export type OpenModelTextFormat = (typeof OPEN_MODEL_TEXT_FORMATS)[number];

/** The open model each format's family serves it under (the simulator's chat model catalog), so
 * every arm's requests name a model that writes that format. */
const SERVED_MODEL_OF_FORMAT: Readonly<Record<OpenModelTextFormat, string>> = {
  tool_call_tag: 'Qwen/Qwen2.5-7B-Instruct',
  bracket_call: 'meta-llama/Llama-3.3-70B-Instruct',
  mistral: 'mistralai/Mistral-7B-Instruct-v0.3',
  mistral_v13: 'mistralai/Mistral-7B-Instruct-v0.3',
  llama_python_tag: 'meta-llama/Llama-3.1-8B-Instruct',
  llama_json: 'meta-llama/Llama-3.1-8B-Instruct',
  deepseek: 'deepseek-ai/DeepSeek-V3',
  deepseek_v31: 'deepseek-ai/DeepSeek-V3',
  granite: 'ibm-granite/granite-3.1-8b-instruct',
  functionary_v31: 'meetkai/functionary-small-v3.1',
  functionary_v32: 'meetkai/functionary-small-v3.2',
};
const NATIVE_SERVED_MODEL = 'Qwen/Qwen2.5-7B-Instruct';
const NATIVE_PROVIDER = 'sim-native';
const BEDROCK_PROVIDER = 'bedrock';
const VERTEX_PROVIDER = 'vertex';
const PARSER_LEAK_PROVIDER = 'sim-parser-leak';
/** The format a leaking parser's server writes: Qwen's, whose vLLM parser is `hermes`. */
const PARSER_LEAK_FORMAT: OpenModelTextFormat = 'tool_call_tag';
const providerOfFormat = (format: OpenModelTextFormat) => `sim-${format}`;

export interface ProviderArm {
  name: string;
  provider: string;
  /** The pinned text format of an open-model profile whose calls arrive as text; null otherwise. */
  format: OpenModelTextFormat | null;
  recovery: boolean;
}

/** The arms for these formats: anthropic and native on and off, bedrock and vertex on, each format
 * on (the first also off), and a parser that leaks calls on. */
export function providerArms(formats: readonly OpenModelTextFormat[]): ProviderArm[] {
  const arms: ProviderArm[] = [];
  const both = (arm: Omit<ProviderArm, 'name' | 'recovery'>, label: string, withOff: boolean) => {
    arms.push({ ...arm, name: `${label}, recovery on`, recovery: true });
    if (withOff) arms.push({ ...arm, name: `${label}, recovery off`, recovery: false });
  };
  both({ provider: IMPLICIT_PROVIDER, format: null }, 'anthropic (messages, drift by table)', true);
  both({ provider: BEDROCK_PROVIDER, format: null }, 'bedrock (invoke stream, drift by table)', false);
  both({ provider: VERTEX_PROVIDER, format: null }, 'vertex (raw predict, drift by table)', false);
  both({ provider: NATIVE_PROVIDER, format: null }, 'openai_compatible native', true);
  formats.forEach((format, index) => both({ provider: providerOfFormat(format), format }, `openai_compatible text ${format}`, index === 0));
  both({ provider: PARSER_LEAK_PROVIDER, format: PARSER_LEAK_FORMAT }, `openai_compatible parser leak ${PARSER_LEAK_FORMAT}`, false);
  return arms;
}

/** BUILDFLEET_PROVIDERS for the arms, every one at the simulator: Bedrock and Vertex at its
 * endpoints of theirs (credentials it does not check, as test/integration/cloud-providers.test.ts
 * declares them), the OpenAI-compatible ones at its chat completions endpoint. */
export function providerDeclarations({
  simulatorUrl,
  fleetModel,
  formats,
}: {
  simulatorUrl: string;
  fleetModel: string;
  formats: readonly OpenModelTextFormat[];
}): string {
  const baseUrl = `${simulatorUrl}/v1`;
  const declarations: Record<string, unknown> = {
    [BEDROCK_PROVIDER]: { kind: 'bedrock', region: 'us-west-2', baseUrl: simulatorUrl, awsAccessKey: 'AKIDEXPERIMENT', awsSecretKey: 'not-a-secret' },
    [VERTEX_PROVIDER]: { kind: 'vertex', region: 'us-east5', projectId: 'experiment-project', baseUrl, accessToken: 'ya29.experiment' },
    [NATIVE_PROVIDER]: { kind: 'openai_compatible', baseUrl, modelIds: { [fleetModel]: NATIVE_SERVED_MODEL }, headers: { 'x-buildfleet-text-calls': 'off' } },
    [PARSER_LEAK_PROVIDER]: {
      kind: 'openai_compatible',
      baseUrl,
      modelIds: { [fleetModel]: SERVED_MODEL_OF_FORMAT[PARSER_LEAK_FORMAT] },
      headers: { 'x-buildfleet-text-calls': 'always', 'x-buildfleet-text-format': PARSER_LEAK_FORMAT },
    },
  };
  for (const format of formats) {
    // The setup real vLLM accepts without `--enable-auto-tool-choice --tool-call-parser`: the
    // provider sends `none` where the model chooses, the server renders the tools and parses nothing.
    declarations[providerOfFormat(format)] = {
      kind: 'openai_compatible',
      baseUrl,
      modelIds: { [fleetModel]: SERVED_MODEL_OF_FORMAT[format] },
      toolParser: false,
      headers: { 'x-buildfleet-tool-parser': 'none', 'x-buildfleet-text-format': format },
    };
  }
  return JSON.stringify(declarations);
}

export interface ProviderArmResult {
  arm: ProviderArm;
  tally: ArmTally;
  /** Text arms with recovery on: did every recovered call parse under the format's own mode (and
   * was at least one recovered)? null where it does not apply. */
  parseModeCheck: { ok: boolean; expected: string } | null;
}

function checkParseModes(arm: ProviderArm, tally: ArmTally): ProviderArmResult['parseModeCheck'] {
  if (arm.format === null || !arm.recovery) return null;
  const expected = TEXT_FORMAT_PARSE_MODES[arm.format];
  const seen = Object.keys(tally.recoveredParseModes);
  return { expected, ok: seen.length > 0 && seen.every((mode) => mode === expected) };
}

export interface ProvidersExperimentOptions {
  runs: number;
  formats?: readonly OpenModelTextFormat[];
  concurrency?: number;
  seed?: number;
  timeoutMs?: number;
  /** An existing Redis (tests, REDIS_URL); default: a private one. */
  redisUrl?: string;
  prefix?: string;
}

export async function runProvidersExperiment(options: ProvidersExperimentOptions): Promise<ProviderArmResult[]> {
  const formats = options.formats ?? OPEN_MODEL_TEXT_FORMATS;
  const arms = providerArms(formats);
  const tallies = arms.map((arm) => newArmTally(arm.name));
  const armOfRun = new Map<string, ArmTally>();
  let redis: PrivateRedis | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-experiment-providers-'));
  try {
    const redisUrl = options.redisUrl ?? (redis = await startPrivateRedis({ dataDir })).url;
    // The simulator's port is chosen first so the declarations can name it, as an operator names
    // a server's address.
    const simulatorPort = await freePort();
    const fleetModel = 'claude-sonnet-4-6';
    const fleet = await startInProcessFleet({
      redisUrl,
      ...(options.prefix ? { prefix: options.prefix } : {}),
      modelWorkers: 2,
      toolWorkers: 2,
      env: {
        BUILDFLEET_MODEL: fleetModel,
        BUILDFLEET_PROVIDERS: providerDeclarations({ simulatorUrl: `http://127.0.0.1:${simulatorPort}`, fleetModel, formats }),
      },
      modelWorker: { hooks: armTallyHooks((runId) => armOfRun.get(runId)) },
      simulator: { host: '127.0.0.1', port: simulatorPort, ...(options.seed !== undefined ? { seed: options.seed } : {}) },
    });
    try {
      // Run i of every arm before run i + 1 of any, so a short or interrupted run still covers every arm.
      const builds = Array.from({ length: options.runs }, (_, run) =>
        arms.map((arm, index) => ({
          tally: tallies[index]!,
          input: {
            provider: arm.provider,
            prompt: `Build a small website for bakery number ${run + 1} (${arm.name}).`,
            options: { textRecovery: arm.recovery },
          },
        })),
      ).flat();
      await runArmBuilds({ fleet, builds, armOfRun, concurrency: options.concurrency ?? 6, timeoutMs: options.timeoutMs ?? 120_000 });
    } finally {
      await fleet.close();
    }
  } finally {
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return arms.map((arm, index) => ({ arm, tally: tallies[index]!, parseModeCheck: checkParseModes(arm, tallies[index]!) }));
}

/** The experiment passes when every arm with recovery on whose calls can be recovered verified at
 * least 99 % of its runs, and every such text arm recovered under its format's parse mode. */
export function providersExperimentPassed(results: readonly ProviderArmResult[]): boolean {
  return results
    .filter(({ arm }) => arm.recovery && (arm.format === null || TEXT_FORMAT_PARSE_MODES[arm.format] !== 'none'))
    .every(({ tally, parseModeCheck }) => verifiedShare(tally) >= 0.99 && (parseModeCheck?.ok ?? true));
}

export function formatProvidersTable(results: readonly ProviderArmResult[]): string {
  const checkOf = new Map(results.map((result) => [result.tally, result.parseModeCheck]));
  return formatArmTable(
    results.map((result) => result.tally),
    [
      { title: 'recovered parse modes', cell: (tally) => formatCounts(tally.recoveredParseModes) },
      {
        title: 'parse mode check',
        cell: (tally) => {
          const check = checkOf.get(tally);
          return check ? `${check.ok ? 'ok' : 'FAILED'} (${check.expected})` : '—';
        },
      },
      { title: 'other ends', cell: (tally) => formatCounts(tally.otherEnds) },
    ],
  );
}

/** Parses `--formats a,b` against OPEN_MODEL_TEXT_FORMATS. */
export function parseFormats(text: string): OpenModelTextFormat[] {
  const known = new Set<string>(OPEN_MODEL_TEXT_FORMATS);
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !known.has(name));
  if (names.length === 0 || unknown.length > 0)
    throw new UsageError(`--formats: unknown ${unknown.join(', ') || '(none given)'}; known: ${OPEN_MODEL_TEXT_FORMATS.join(', ')}`);
  return [...new Set(names)] as OpenModelTextFormat[];
}

export async function runProvidersExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { runs: { type: 'string', default: '10' }, formats: { type: 'string' }, concurrency: { type: 'string', default: '6' }, seed: { type: 'string' } },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 10_000) throw new UsageError('--runs must be a whole number from 1 to 10000');
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 100) throw new UsageError('--concurrency must be a whole number from 1 to 100');
  const formats = values.formats ? parseFormats(values.formats) : [...OPEN_MODEL_TEXT_FORMATS];
  console.error(`running ${runs} builds in each of ${providerArms(formats).length} arms, ${concurrency} at a time…`);
  const results = await runProvidersExperiment({
    runs,
    formats,
    concurrency,
    ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
    ...(values.seed ? { seed: Number(values.seed) } : {}),
  });
  console.log(formatProvidersTable(results));
  return providersExperimentPassed(results) ? 0 : 1;
}
