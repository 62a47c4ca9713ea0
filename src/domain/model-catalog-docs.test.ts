// docs/models.md shows the model catalog as a table; a catalog change that leaves the docs behind
// fails here (a wrong table in the docs is a bug).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MODEL_RECORDS } from './model-catalog.js';

const docs = readFileSync(new URL('../../docs/models.md', import.meta.url), 'utf8');

function rowOf(id: string): string[] {
  const line = docs.split('\n').find((candidate) => candidate.startsWith(`| \`${id}\``));
  expect(line, `docs/models.md has no row for ${id}`).toBeDefined();
  return (line ?? '').split('|').map((cell) => cell.trim());
}

describe('docs/models.md', () => {
  it('has a row per catalog model with its aliases, lifecycle, limits, forced tool_choice, tokenizer and price', () => {
    for (const record of MODEL_RECORDS) {
      const row = rowOf(record.id);
      for (const alias of record.aliases) expect(row[1], record.id).toContain(`\`${alias}\``);
      expect(row[2], record.id).toContain(record.lifecycle.status);
      if (record.lifecycle.successor && record.lifecycle.status !== 'active' && record.lifecycle.status !== 'legacy') expect(row[2], record.id).toContain(record.lifecycle.successor);
      if (record.lifecycle.status === 'retired') continue;
      const k = (tokens: number) => (tokens >= 1_000_000 ? `${tokens / 1_000_000}M` : `${tokens / 1000}K`);
      expect(row[3], record.id).toBe(`${k(record.contextWindowTokens)} / ${k(record.maxOutputTokens)}`);
      expect(row[8], record.id).toBe(record.forcedToolChoice ? 'yes' : '**400**');
      expect(row[12], record.id).toBe(record.tokenizer);
      if (record.price) expect(row[13], record.id).toContain(`$${record.price.input} / $${record.price.output}`);
    }
  });
});
