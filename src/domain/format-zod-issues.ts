// Turns zod issues into one message that names each failing field by its full path, so a reader
// sees `body.options.scenario: Invalid string` rather than a bare "validation failed". One wording
// for every boundary: API bodies, tool inputs the model sent, the environment, stored records.
// (zod-validation-error 5 supports zod 4, but words issues its own way — `Validation error: … at
// "prompt"` — and API clients read these lines.)
import type { z } from 'zod';

export interface ZodIssueFormat {
  issues: readonly z.core.$ZodIssue[];
  /** Where paths start (`body`, `BUILDFLEET_PROVIDERS.anthropic`); without one a path starts at its
   * first key. */
  root?: string;
  /** The name of the whole value, for an issue with no path and no root (`(input)`). */
  whole?: string;
}

function pathOf(root: string | undefined, whole: string, path: ReadonlyArray<PropertyKey>): string {
  let text = root ?? '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? String(segment) : `.${String(segment)}`;
  }
  return text === '' ? whole : text;
}

/** One line per issue, `path: message`; unknown keys are named one by one. */
export function zodIssueLines({ issues, root, whole = '(value)' }: ZodIssueFormat): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(`${pathOf(root, whole, [...issue.path, key])}: Unknown field`);
    } else {
      lines.push(`${pathOf(root, whole, issue.path)}: ${issue.message}`);
    }
  }
  return lines;
}

/** The lines of zodIssueLines joined by `; `; with `limit`, the first few and `(n more)`. */
export function formatZodIssues({ limit, ...format }: ZodIssueFormat & { limit?: number }): string {
  const lines = zodIssueLines(format);
  // A body with dozens of problems is better fixed a few at a time than answered with a wall.
  if (limit === undefined || lines.length <= limit) return lines.join('; ');
  return [...lines.slice(0, limit), `(${lines.length - limit} more)`].join('; ');
}
