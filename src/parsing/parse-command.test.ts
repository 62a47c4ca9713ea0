import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { runParseCommand } from './parse-command.js';

let directory: string;
let toolsPath: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'buildfleet-parse-'));
  toolsPath = join(directory, 'tools.json');
  const tools = [
    {
      name: 'get_weather',
      description: 'Current weather for a city',
      input_schema: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
        additionalProperties: false,
      },
    },
    // As the fleet generates it from zod: draft 2020-12.
    { name: 'write_file', description: 'Write a file', input_schema: z.toJSONSchema(toolInputSchemas.write_file) },
  ];
  await writeFile(toolsPath, JSON.stringify(tools));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function run(argv: string[], input: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const output: string[] = [];
  const errors: string[] = [];
  stdout.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => errors.push(chunk.toString('utf8')));
  const code = await runParseCommand(argv, Readable.from([Buffer.from(input, 'utf8')]), stdout, stderr);
  return { code, stdout: output.join(''), stderr: errors.join('') };
}

describe('buildfleet parse', () => {
  it('prints the parse result as one JSON object and exits 0', async () => {
    const { code, stdout, stderr } = await run(['--tools', toolsPath], '<tool_use>{"name":"get_weather","input":{"city":"Antwerp"}}</tool_use>');
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.endsWith('\n')).toBe(true);
    expect(JSON.parse(stdout)).toEqual({
      calls: [{ name: 'get_weather', arguments: { city: 'Antwerp' } }],
      parse_mode: 'tool_use_tag',
      candidate_count: 1,
      fallback_used: false,
      schema_validation: 'pass',
      reason: null,
    });
  });

  it('has tool intent on by default, so fallbacks work', async () => {
    const text = '```json\n{"tool":"write_file","path":"index.html","content":"<h1>Hi</h1>"}\n```';
    const { code, stdout } = await run(['parse', `--tools=${toolsPath}`], text);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      calls: [{ name: 'write_file', arguments: { path: 'index.html', content: '<h1>Hi</h1>' } }],
      parse_mode: 'fenced',
      fallback_used: true,
    });
  });

  it('--no-intent turns the fallbacks off', async () => {
    const { code, stdout } = await run(['--tools', toolsPath, '--no-intent'], '[get_weather(city="Antwerp")]');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ calls: [], reason: 'no_tool_intent' });
  });

  it('reports refusals in the output, still exiting 0', async () => {
    const { code, stdout } = await run(['--tools', toolsPath], '<tool name="write_file">{"path":"a.txt"}</tool>');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ calls: [], schema_validation: 'fail', reason: 'schema_invalid:/content:missing_required' });
  });

  it('exits 2 with a clear error when the tools file is missing', async () => {
    const { code, stdout, stderr } = await run(['--tools', join(directory, 'absent.json')], '');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/bad tools file .*absent\.json/);
  });

  it('exits 2 when the tools file is not JSON', async () => {
    const path = join(directory, 'not-json.json');
    await writeFile(path, '[{name: oops}]');
    const { code, stderr } = await run(['--tools', path], '');
    expect(code).toBe(2);
    expect(stderr).toMatch(/not JSON/);
  });

  it('exits 2 when a tool lacks an input_schema', async () => {
    const path = join(directory, 'no-schema.json');
    await writeFile(path, JSON.stringify([{ name: 'x', description: 'y' }]));
    const { code, stderr } = await run(['--tools', path], '');
    expect(code).toBe(2);
    expect(stderr).toMatch(/expected \[\{name, description, input_schema\}\]: 0\.input_schema/);
  });

  it('exits 2 when a schema does not compile', async () => {
    const path = join(directory, 'bad-schema.json');
    await writeFile(path, JSON.stringify([{ name: 'x', input_schema: { type: 'object', properties: { a: { type: 'strng' } } } }]));
    const { code, stderr } = await run(['--tools', path], '');
    expect(code).toBe(2);
    expect(stderr).toMatch(/tool "x": invalid input_schema/);
  });

  it('exits 2 on a usage error', async () => {
    expect((await run([], '')).code).toBe(2);
    expect((await run(['--tools'], '')).code).toBe(2);
    const unknown = await run(['--tools', toolsPath, '--verbose'], '');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown argument "--verbose"/);
  });
});
