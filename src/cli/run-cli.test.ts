import { describe, expect, it } from 'vitest';
import { SCENARIO_NAMES } from '../domain/scenario-names.js';
import { cliName, commandUsage, runCli, USAGE } from './run-cli.js';
import type { CliIo } from './cli-io.js';
import { EXIT_CODES } from './exit-codes.js';

async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { print: (line) => out.push(line), printError: (line) => err.push(line), ask: async () => null };
  return { code: await runCli(argv, io), out: out.join('\n'), err: err.join('\n') };
}

describe('the CLI’s help', () => {
  it('answers `<command> --help` with that command’s usage, not an unknown option', async () => {
    const help = await cli(['submit', '--help']);
    expect(help.code).toBe(EXIT_CODES.ok);
    expect(help.out).toMatch(/^ {2}submit "<prompt>"/);
    expect(help.out).not.toContain('Commands:');
    expect((await cli(['experiment', '-h'])).out.split('\n').filter((line) => line.startsWith('  experiment '))).toHaveLength(
      USAGE.split('\n').filter((line) => line.startsWith('  experiment ')).length,
    );
  });

  it('prints a usage error in a few lines — the fault, the command’s usage, where the whole help is — not the whole help', async () => {
    const refused = await cli(['status']);
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.err).toContain('buildfleet: status needs a run id');
    expect(refused.err).toContain(commandUsage('status'));
    expect(refused.err).toMatch(/Run `(npm run buildfleet --|buildfleet) help` for every command\.$/);
    expect(refused.err).not.toContain('Commands:');
    expect((await cli(['nonsense'])).err.split('\n').length).toBeLessThanOrEqual(3);
  });

  it('lists every simulator scenario', () => {
    for (const scenario of SCENARIO_NAMES) expect(USAGE).toContain(scenario);
  });

  it('names itself as the user runs it', () => {
    expect(cliName({ npm_lifecycle_event: 'buildfleet' })).toBe('npm run buildfleet --');
    expect(cliName({})).toBe('buildfleet');
  });
});

describe('the README', () => {
  it('lists every simulator scenario, as the API accepts them', async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const scenario of SCENARIO_NAMES) expect(readme).toContain(`\`${scenario}\``);
  });
});
