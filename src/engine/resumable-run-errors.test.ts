import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_ERROR_CODES } from '../domain/run-outcomes.js';
import { isResumableRunError, RESUMABLE_RUN_ERRORS } from './resumable-run-errors.js';

/** The rows of the resume table in docs/run-states.md: code → its "resumable" cell. */
function documentedTable(): Map<string, string> {
  const docs = readFileSync(new URL('../../docs/run-states.md', import.meta.url), 'utf8');
  const section = docs.slice(docs.indexOf('## Resume'));
  const rows = new Map<string, string>();
  for (const match of section.slice(0, section.indexOf('\n## ', 4) === -1 ? undefined : section.indexOf('\n## ', 4)).matchAll(/^\| `([a-z_]+)` \| (yes|no) \|/gm)) rows.set(match[1]!, match[2]!);
  return rows;
}

describe('resumable run errors', () => {
  it('are run error codes', () => {
    expect(Object.keys(RESUMABLE_RUN_ERRORS).filter((code) => !Object.hasOwn(RUN_ERROR_CODES, code))).toEqual([]);
  });

  it('are the table of docs/run-states.md#resume, which names every error code once', () => {
    const table = documentedTable();
    expect([...table.keys()].sort()).toEqual(Object.keys(RUN_ERROR_CODES).sort());
    for (const [code, cell] of table) expect({ code, resumable: cell === 'yes' }).toEqual({ code, resumable: isResumableRunError(code) });
  });
});
