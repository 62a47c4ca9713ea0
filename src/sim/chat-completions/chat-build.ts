// A whole build driven through `/v1/chat/completions` with the real openai SDK, for tests: the
// phase's tools as functions, every tool call answered verbatim by id with a `tool` message from
// the fake executor, until the summary after finish_turn (simulated-conversation.ts does the same
// over /v1/messages).
import type OpenAI from 'openai';
import { z } from 'zod';
import { toolsForPhase, type BuilderPhase as Phase } from '../../domain/profile.js';
import { toolInputSchemas } from '../../domain/tool-input-schemas.js';
import { FakeToolExecutor } from '../fake-tool-executor.js';
import { SUMMARY_REQUEST_TEXT } from '../simulated-conversation.js';

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

export interface ChatBuildResult {
  completions: OpenAI.Chat.Completions.ChatCompletion[];
  messages: Message[];
  toolCalls: Array<{ id: string; name: string }>;
  finalText: string | null;
}

/** The phase's tools as chat completions functions. */
export function chatToolsFor(phase: Phase): OpenAI.Chat.Completions.ChatCompletionFunctionTool[] {
  return toolsForPhase(phase).map((name) => ({
    type: 'function',
    function: { name, description: `The ${name} tool.`, parameters: z.toJSONSchema(toolInputSchemas[name]) as Record<string, unknown> },
  }));
}

function nextPhase(phase: Phase, name: string, input: Record<string, unknown>): Phase {
  if (name === 'todo_write' && phase === 'planning') return 'building';
  if (name === 'todo_complete' && input.id === 'build' && phase === 'building') return 'verifying';
  return phase;
}

/** Runs a build until the summary, or gives up after `maxRequests`. */
export async function runChatBuild({
  client,
  model,
  stream = false,
  headers = {},
  maxRequests = 40,
}: {
  client: OpenAI;
  model: string;
  stream?: boolean;
  headers?: Record<string, string>;
  maxRequests?: number;
}): Promise<ChatBuildResult> {
  const executor = new FakeToolExecutor();
  const messages: Message[] = [
    { role: 'system', content: 'You build small websites with the tools you are given.' },
    { role: 'user', content: 'Build a one-page site for a bakery called Crumbs.' },
  ];
  const completions: OpenAI.Chat.Completions.ChatCompletion[] = [];
  const toolCalls: ChatBuildResult['toolCalls'] = [];
  let phase: Phase = 'planning';
  let finished = false;
  for (let request = 0; request < maxRequests; request += 1) {
    const body = { model, messages, tools: chatToolsFor(phase), tool_choice: 'auto' as const };
    const completion = stream
      ? await client.chat.completions.stream({ ...body, stream_options: { include_usage: true } }, { headers }).finalChatCompletion()
      : await client.chat.completions.create(body, { headers });
    completions.push(completion);
    const choice = completion.choices[0];
    if (!choice) throw new Error('a completion without a choice');
    const calls = (choice.message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [call] : []));
    if (calls.length === 0) {
      if (finished && choice.message.content) return { completions, messages, toolCalls, finalText: choice.message.content };
      messages.push({ role: 'assistant', content: choice.message.content ?? '' });
      messages.push({ role: 'user', content: 'Continue with the tools.' });
      continue;
    }
    messages.push({ role: 'assistant', content: choice.message.content, tool_calls: calls });
    for (const call of calls) {
      toolCalls.push({ id: call.id, name: call.function.name });
      const input = JSON.parse(call.function.arguments) as Record<string, unknown>;
      const result = executor.execute({ name: call.function.name, input });
      if (!result.isError) phase = nextPhase(phase, call.function.name, input);
      if (!result.isError && call.function.name === 'finish_turn') finished = true;
      messages.push({ role: 'tool', tool_call_id: call.id, content: result.content });
    }
    if (finished) messages.push({ role: 'user', content: SUMMARY_REQUEST_TEXT });
  }
  return { completions, messages, toolCalls, finalText: null };
}
