// A stand-in for the fleet's tool workers, for driving the simulator without Redis: it checks
// inputs against the real schemas and answers with plausible results in the fleet's wrapper.
import { isToolName, type ToolName } from '../domain/profile.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';

export interface FakeToolResult {
  content: string;
  isError: boolean;
}

function wrap(name: string, output: unknown): string {
  return `<tool_output tool="${name}" trust="untrusted">\n${JSON.stringify(output)}\n</tool_output>`;
}

/** Answers tool calls the way the fleet's tools would, keeping a tiny in-memory workspace. */
export class FakeToolExecutor {
  readonly files = new Map<string, string>();
  readonly completedTodos = new Set<string>();
  #deployCount = 0;
  #baseUrl: string;

  constructor({ baseUrl = 'http://127.0.0.1:1/sites/r' }: { baseUrl?: string } = {}) {
    this.#baseUrl = baseUrl;
  }

  /** Runs one call; a tool failure is data (`isError`), never a throw. */
  execute({ name, input }: { name: string; input: unknown }): FakeToolResult {
    if (!isToolName(name)) return { content: `Error (tool_not_available): Tool "${name}" does not exist.`, isError: true };
    const parsed = toolInputSchemas[name].safeParse(input);
    if (!parsed.success) {
      // The fleet's own wording (src/agent/reject-call.ts), which this stands in for.
      const problems = formatZodIssues({ issues: parsed.error.issues, whole: '(input)' });
      return { content: `Error (tool_input_invalid): Invalid input for ${name}: ${problems}`, isError: true };
    }
    const output = this.#run(name, parsed.data as Record<string, unknown>);
    return typeof output === 'string' ? { content: output, isError: true } : { content: wrap(name, output), isError: false };
  }

  /** A string return is an error message. */
  #run(name: ToolName, input: Record<string, unknown>): Record<string, unknown> | string {
    const path = typeof input.path === 'string' ? input.path : '';
    switch (name) {
      case 'write_file':
        this.files.set(path, String(input.content));
        return { path, bytes: String(input.content).length };
      case 'read_file':
        return this.files.has(path) ? { path, content: this.files.get(path) } : `Error (file_not_found): No file at ${path}.`;
      case 'delete_file':
        return this.files.delete(path) ? { deleted: path } : `Error (file_not_found): No file at ${path}.`;
      case 'list_files':
        return { files: [...this.files.keys()] };
      case 'deploy': {
        this.#deployCount += 1;
        const deployId = `dep_${this.#deployCount}`;
        return { deploy_id: deployId, url: `${this.#baseUrl}/d/${deployId}/` };
      }
      case 'publish':
        return { deploy_id: input.deploy_id, url: `${this.#baseUrl}/` };
      case 'todo_complete':
        this.completedTodos.add(String(input.id));
        return { todo: { id: input.id, done: true } };
      case 'fetch_url_live':
        return { url: input.url, status: 200, title: 'Site', text: 'Welcome' };
      case 'check_broken_images':
        return { deploy_id: input.deploy_id, checked: 1, broken: [], unchecked: [] };
      case 'ask_user':
        return { awaiting_input: true, question: input.question };
      case 'finish_turn':
        return { finished: true, summary: input.summary };
      default:
        return { ok: true, tool: name };
    }
  }
}
