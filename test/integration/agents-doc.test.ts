// docs/agents.md shows code only as excerpts of files the tests run (issue #33 item 7: each example
// is run by a test): every ```ts block must appear, line for line, in the example agent or the
// agents' source, so an excerpt that drifts from the code fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCES = ['examples/order-desk/agent.ts', 'src/agents/site-builder/agent.ts', 'src/agents/define-agent.ts'].map((path) => readFileSync(join(ROOT, path), 'utf8'));

const blocks = [...readFileSync(join(ROOT, 'docs', 'agents.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!.trimEnd());

describe('docs/agents.md', () => {
  it('has code examples', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
  });

  it.each(blocks.map((block, index) => [index + 1, block] as const))('takes its example %i from a file the tests run', (_, block) => {
    expect(SOURCES.some((source) => source.includes(block)), block).toBe(true);
  });
});
