import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_EVENT_NAMES, hasRunEventKeys, isRunEventName } from './run-events.js';

const documentation = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The names in the first cell of each table row of a document's sections whose title says
 * "events" (`| \`turn-start\` | …`, `| \`a\` / \`b\` | …`). */
function tabledEventNames(markdown: string): string[] {
  const names: string[] = [];
  let inEventSection = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('#')) inEventSection = /events/i.test(line);
    if (!inEventSection || !line.startsWith('| `')) continue;
    const firstCell = line.split('|')[1] ?? '';
    for (const match of firstCell.matchAll(/`([^`]+)`/g)) names.push(match[1] ?? '');
  }
  return names;
}

describe('RUN_EVENTS', () => {
  it('names every event noun-verb, in kebab-case', () => {
    for (const name of RUN_EVENT_NAMES) expect(name).toMatch(/^[a-z]+(-[a-z]+)+$/);
  });

  it('is what the documentation’s event tables name', () => {
    const documented = [...tabledEventNames(documentation('docs/run-states.md')), ...tabledEventNames(documentation('docs/webhooks.md'))];
    expect(documented.length).toBeGreaterThan(15);
    for (const name of documented) expect(isRunEventName(name), name).toBe(true);
  });

  it('reads back an event only with the fields readers key on (the decoders refuse the rest)', () => {
    expect(hasRunEventKeys({ event: 'tool-call-end', tool_use_id: 'toolu_1', ok: true })).toBe(true);
    expect(hasRunEventKeys({ event: 'tool-call-end', ok: true })).toBe(false);
    expect(hasRunEventKeys({ event: 'input-wait', tool_use_id: 7 })).toBe(false);
    expect(hasRunEventKeys({ event: 'run-end', status: 'failed' })).toBe(true);
    expect(hasRunEventKeys({ event: 'run-end', status: 'running' })).toBe(false);
    // Other events' fields pass through as written (RunEventFields declares them for the emitters).
    expect(hasRunEventKeys({ event: 'phase-change' })).toBe(true);
  });
});
