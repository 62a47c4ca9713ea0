// `buildfleet parse --tools FILE [--no-intent]`: runs the text tool-call parser on stdin, with the
// tools of FILE (Anthropic format: [{name, description, input_schema}]) as both the catalog and
// the tier, and prints one JSON object. Exit 0 when the text was parsed (with or without a
// call), 2 on a usage error or a bad tools file. Tool intent is on unless --no-intent.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { createJsonSchemaValidator } from './create-json-schema-validator.js';
import { parseToolCallsFromText } from './parse-tool-calls.js';
import type { ArgumentValidator } from './parse-types.js';

const USAGE = 'usage: buildfleet parse --tools FILE [--no-intent]  (model text on stdin)';

const toolsFileSchema = z.array(
  z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()),
  }),
);

class UsageError extends Error {}

/** `argv` holds the arguments after `parse` (a leading `parse` is skipped too). */
export async function runParseCommand(
  argv: string[],
  stdin: NodeJS.ReadableStream,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  let toolsPath: string;
  let toolIntent: boolean;
  try {
    ({ toolsPath, toolIntent } = readArguments(argv[0] === 'parse' ? argv.slice(1) : argv));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    stderr.write(`buildfleet parse: ${error.message}\n${USAGE}\n`);
    return 2;
  }

  let validate: ArgumentValidator;
  let toolNames: string[];
  try {
    const tools = await readToolsFile(toolsPath);
    validate = createJsonSchemaValidator(tools);
    toolNames = tools.map((tool) => tool.name);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    stderr.write(`buildfleet parse: bad tools file ${toolsPath}: ${message}\n`);
    return 2;
  }

  const text = await readAll(stdin);
  const result = parseToolCallsFromText(text, { allowedTools: toolNames, validate, toolIntent });
  const output = {
    calls: result.calls,
    parse_mode: result.parse_mode,
    candidate_count: result.candidate_count,
    fallback_used: result.fallback_used,
    schema_validation: result.schema_validation,
    reason: result.reason,
  };
  stdout.write(JSON.stringify(output) + '\n');
  return 0;
}

function readArguments(argv: string[]): { toolsPath: string; toolIntent: boolean } {
  let toolsPath: string | null = null;
  let toolIntent = true;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    if (argument === '--no-intent') {
      toolIntent = false;
    } else if (argument === '--tools') {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError('--tools needs a FILE');
      toolsPath = value;
      index += 1;
    } else if (argument.startsWith('--tools=')) {
      toolsPath = argument.slice('--tools='.length);
    } else {
      throw new UsageError(`unknown argument ${JSON.stringify(argument)}`);
    }
  }
  if (!toolsPath) throw new UsageError('--tools FILE is required');
  return { toolsPath, toolIntent };
}

async function readToolsFile(path: string): Promise<Array<{ name: string; input_schema: object }>> {
  const text = await readFile(path, 'utf8');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = toolsFileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'the file';
    throw new Error(`expected [{name, description, input_schema}]: ${where}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
