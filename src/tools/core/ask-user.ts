// ask_user: a question for the person who started the run. Pausing the run is the queue layer's
// job (it sees awaiting_input); this tool only checks the question.
import { z } from 'zod';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { toolDescriptions } from '../../domain/tool-descriptions.js';
import { defineTool, ToolError } from '../tool-types.js';

export const askUserTool = defineTool({
  name: 'ask_user',
  description: toolDescriptions.ask_user,
  inputSchema: toolInputSchemas.ask_user,
  output: {
    schema: z.strictObject({ awaiting_input: z.literal(true), question: z.string().min(1).max(2000) }),
    mode: 'fail_closed',
  },
  writes: false,
  idempotent: true,
  async execute(input) {
    const question = input.question.trim();
    if (question.length === 0) throw new ToolError('question_empty', 'The question is empty; write the question to ask.');
    return { awaiting_input: true, question };
  },
});
