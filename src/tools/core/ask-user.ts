// ask_user: a question for the person who started the run. Pausing the run is the queue layer's
// job (it sees awaiting_input); this tool only checks the question.
import { z } from 'zod';
import { toolInputSchemas } from '../input-schemas.js';
import { defineTool, ToolError } from '../tool-types.js';

export const askUserTool = defineTool({
  name: 'ask_user',
  description:
    'Ask the person who requested the site one question, when you cannot proceed without their answer ' +
    '(e.g. the business name is missing). The run pauses until they reply. Do not ask about things you can decide yourself.',
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
