// Turns zod issues into one message that names each failing field by its full path, so a client
// sees `body.options.scenario: Invalid string` rather than a bare "validation failed".
import type { z } from 'zod';

/** The request part a path is rooted at: `body`, `params`, `query` or `headers`. */
export type RequestPart = 'body' | 'params' | 'query' | 'headers';

function pathOf(part: RequestPart, path: ReadonlyArray<PropertyKey>): string {
  let text: string = part;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += `.${String(segment)}`;
  }
  return text;
}

/** One line per issue, `path: message`; unknown keys are named one by one. */
export function formatZodIssues(part: RequestPart, issues: readonly z.core.$ZodIssue[]): string {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(`${pathOf(part, [...issue.path, key])}: Unknown field`);
    } else {
      lines.push(`${pathOf(part, issue.path)}: ${issue.message}`);
    }
  }
  // A body with dozens of problems is better fixed a few at a time than answered with a wall.
  const shown = lines.slice(0, 5);
  if (lines.length > shown.length) shown.push(`(${lines.length - shown.length} more)`);
  return shown.join('; ');
}
