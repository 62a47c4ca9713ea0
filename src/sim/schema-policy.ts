// The schema-driven policy (issue #33 item 6b, fuzzing an agent's contracts): a model that knows no
// agent. Each turn it calls one of the tools the request offers with an input generated from that
// tool's JSON Schema — valid (json-schema-faker, seeded by the transcript), or, on request, invalid
// in one way a model gets an input wrong (a required field missing, a field it does not have, a
// wrong type) — and so follows whatever phases the agent's offered tools describe. It calls each
// offered tool once (a failed call once more), leaves the tools whose names sound final (finish,
// complete, done, submit, end) for last, and answers in text once it has nothing left to call:
// the agent's finish gate decides what that means.
//
// A model reads a tool's descriptions as well as its schema: the bounds strict tool use cannot hold
// (lengths, patterns, numeric bounds, array sizes) are written into the description as
// "(minLength 1, maxLength 64, pattern ^[a-z]+$)" — the fleet's strictInputSchema does, as the SDKs'
// helpers do — and the policy honours them when it draws a valid input, as a careful model would.
//
// Like every answer, a call goes through the strict-tool guarantee (a strict tool's input always
// matches its schema, so it is never made invalid), scenarios and text-call drift.
import { generateSync } from 'json-schema-faker';
import { createJsonSchemaValidator } from '../parsing/index.js';
import { STRICT_MOVED_KEYWORDS } from '../domain/strict-schema-keywords.js';
import { deterministicFraction } from './deterministic-random.js';
import type { MessagesRequest } from './messages-request.js';
import type { PlannedTurn } from './planned-turn.js';
import type { TranscriptFacts } from './transcript-facts.js';

/** The policies the simulator answers with: `builder` (builder-policy.ts, the default), `schema`. */
export const SIMULATOR_POLICIES = ['builder', 'schema'] as const;
export type SimulatorPolicy = (typeof SIMULATOR_POLICIES)[number];

export function isSimulatorPolicy(value: string): value is SimulatorPolicy {
  return (SIMULATOR_POLICIES as readonly string[]).includes(value);
}

/** A call of a tool whose name sounds final is left until every other tool was called. */
const FINAL_NAME = /(^|_)(finish|complete|done|submit|end)(_|$)/;
/** A tool whose call failed is called once more, then left. */
const CALLS_PER_TOOL = 2;
/** The longest string the policy writes while the schema allows it. */
const BRIEF_STRING_LENGTH = 400;
/** Beyond this transcript length the policy answers in text rather than risk looping. */
const MAX_TRANSCRIPT_MESSAGES = 80;

export interface SchemaPolicyInput {
  request: MessagesRequest;
  facts: TranscriptFacts;
  seed: number;
  transcriptHash: string;
  /** Share (0–1) of calls of non-strict tools whose input is made invalid. */
  invalidShare: number;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The next tool to call, or null when every offered tool was called (or tried twice). */
function nextTool({ request, facts }: SchemaPolicyInput): string | null {
  const ordered = [...request.toolNames.filter((name) => !FINAL_NAME.test(name)), ...request.toolNames.filter((name) => FINAL_NAME.test(name))];
  return (
    ordered.find((name) => {
      const calls = facts.calls.filter((call) => call.name === name);
      return !calls.some((call) => call.outcome === 'success') && calls.length < CALLS_PER_TOOL;
    }) ?? null
  );
}

const MOVED_KEYWORDS: readonly string[] = STRICT_MOVED_KEYWORDS;
const MOVED_ENTRY = new RegExp(`^(${MOVED_KEYWORDS.join('|')}) (.*?)(?=, (?:${MOVED_KEYWORDS.join('|')}) |$)`, 's');

/** The `keyword value` entries of a description's closing parenthetical, or null when it has none.
 * Read from the end, by the known keywords, so a pattern's own parentheses and commas do not end it. */
function describedBounds(description: string): Record<string, unknown> | null {
  if (!description.endsWith(')')) return null;
  for (let open = description.lastIndexOf('('); open >= 0; open = description.lastIndexOf('(', open - 1)) {
    let rest = description.slice(open + 1, -1);
    const bounds: Record<string, unknown> = {};
    for (let entry = MOVED_ENTRY.exec(rest); entry; entry = MOVED_ENTRY.exec(rest)) {
      const [whole, keyword, value] = entry as unknown as [string, string, string];
      bounds[keyword] = keyword === 'pattern' ? value : keyword === 'uniqueItems' ? value === 'true' : Number(value);
      rest = rest.slice(whole.length).replace(/^, /, '');
      if (rest === '') return Object.values(bounds).some((bound) => typeof bound === 'number' && !Number.isFinite(bound)) ? null : bounds;
    }
    if (open === 0) break;
  }
  return null;
}

/** The schema with the bounds its descriptions state put back as keywords (see the header). */
export function withDescribedBounds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withDescribedBounds);
  if (!isRecord(schema)) return schema;
  const result: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([keyword, value]) => [keyword, keyword === 'enum' || keyword === 'const' ? value : withDescribedBounds(value)]),
  );
  const bounds = typeof schema.description === 'string' ? describedBounds(schema.description) : null;
  for (const [keyword, value] of Object.entries(bounds ?? {})) if (!(keyword in result)) result[keyword] = value;
  return result;
}

/** An input valid for `schema`, drawn with `seed`; checked, as a generator may miss a keyword. */
export function validInput(offered: Record<string, unknown>, seed: number): Record<string, unknown> {
  const schema = withDescribedBounds(offered) as Record<string, unknown>;
  const validate = createJsonSchemaValidator([{ name: 'tool', input_schema: schema }]);
  for (let attempt = 0; attempt < 6; attempt += 1) {
    // Short strings and arrays first, as a model writes them (a schema's 1 MB `content` drawn at
    // random length would spend a run's whole budget on noise); the schema's own bounds after.
    const brief = attempt < 3 ? { maxLength: BRIEF_STRING_LENGTH, maxItems: 5 } : {};
    const value = generateSync(schema as never, { seed: seed + attempt, optionalsProbability: 0.5, ...brief });
    if (isRecord(value) && validate('tool', value).ok) return value;
  }
  throw new Error(`no valid input generated for the schema ${JSON.stringify(schema).slice(0, 300)}`);
}

/** Values of a type a property did not ask for, tried in turn. */
const WRONG_VALUES: readonly unknown[] = [[[['wrong type']]], null, 12345, 'wrong type', true, { wrong: 'type' }];

/** `input` made invalid for `schema` in one way a model gets an input wrong — a required field left
 * out, else a field the schema does not have, else a value of the wrong type — each candidate
 * checked against the schema; null when the schema accepts every one (it constrains nothing). */
export function invalidInput(schema: Record<string, unknown>, input: Record<string, unknown>): Record<string, unknown> | null {
  const validate = createJsonSchemaValidator([{ name: 'tool', input_schema: schema }]);
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const properties = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  const candidates = [
    ...required.filter((name) => name in input).map((name) => Object.fromEntries(Object.entries(input).filter(([key]) => key !== name))),
    { ...input, unexpected_field: true },
    ...properties.flatMap((name) => WRONG_VALUES.map((value) => ({ ...input, [name]: value }))),
  ];
  return candidates.find((candidate) => !validate('tool', candidate).ok) ?? null;
}

/** Decides the schema policy's turn. */
export function decideSchemaTurn(input: SchemaPolicyInput): PlannedTurn {
  const { request, facts, seed, transcriptHash } = input;
  const forced = request.toolChoice.type === 'tool' ? request.toolChoice.name : null;
  // Under `any` the API guarantees a call, so the transcript cap and an exhausted list give one too.
  const mustCall = request.toolChoice.type === 'any' ? (request.toolNames[0] ?? null) : null;
  const open = facts.messageCount <= MAX_TRANSCRIPT_MESSAGES && request.toolChoice.type !== 'none';
  const name = forced ?? (open ? nextTool(input) : null) ?? mustCall;
  if (name === null) {
    return {
      kind: 'final-answer',
      paragraphs: [
        'I have called the tools I was offered.',
        `Calls made: ${facts.calls.length}, of which failed: ${facts.calls.filter((call) => call.outcome === 'error').length}.`,
        'Nothing is left for me to call.',
      ],
    };
  }
  const schema = request.toolInputSchemas[name] ?? { type: 'object' };
  const callSeed = seed + facts.calls.length * 7919 + [...transcriptHash].reduce((sum, character) => sum + character.charCodeAt(0), 0);
  const valid = validInput(schema, callSeed);
  const strict = request.strictTools.some((tool) => tool.name === name);
  const makeInvalid = !strict && deterministicFraction({ parts: [seed, transcriptHash, 'schema-policy-invalid'] }) < input.invalidShare;
  const preface = request.toolChoice.type === 'auto' && facts.lastMessage.role === 'user' ? `Calling ${name}.` : null;
  return { kind: 'tool-calls', preface, calls: [{ name, input: (makeInvalid ? invalidInput(schema, valid) : null) ?? valid }] };
}
