// Drives a whole build against the simulator through the real SDK, the way the fleet would but
// without queues: tiered tools by phase (core → core+build → core+ops), tool results from
// FakeToolExecutor, and the ordinary recoveries (continue after pause_turn/max_tokens by
// extending the assistant message, nudge after an early end_turn). Like the fleet, it asks for the
// summary after a successful finish_turn in the user message, keeping the phase's tools and
// tool_choice `auto`, and refuses any call made after it. Tests and benchmarks use it.
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { toolsForPhase, type BuilderPhase as Phase } from '../domain/profile.js';
import { toolInputSchemas } from '../domain/tool-input-schemas.js';
import { FakeToolExecutor } from './fake-tool-executor.js';

export interface SimulatedConversationOptions {
  client: Anthropic;
  /** The model asked for; default `claude-sim`, which allows the forced first call and manual thinking. */
  model?: string;
  /** Sent as `thinking` as it stands (a generation's own forms); thinkingBudgetTokens wins when both are set. */
  thinking?: Record<string, unknown>;
  prompt?: string;
  /** Sent with every request (scenario, text-call mode, run id, fault). */
  headers?: Record<string, string>;
  stopSequences?: string[];
  /** Force todo_write on the first request, as the fleet does. */
  forcePlanFirst?: boolean;
  maxRequests?: number;
  maxTokens?: number;
  /** The ask_user answer. */
  answer?: string;
  /** Enables extended thinking with this budget; thinking blocks go back verbatim (never with forcePlanFirst: the API refuses it). */
  thinkingBudgetTokens?: number;
  /** Streams every call (`client.messages.stream(...).finalMessage()`) instead of create(). */
  stream?: boolean;
}

export interface SimulatedConversationResult {
  responses: Anthropic.Message[];
  messages: Anthropic.MessageParam[];
  /** Every tool_use the model made, in order. */
  toolCalls: Array<{ name: string; input: unknown; phase: Phase }>;
  phases: Phase[];
  finalText: string | null;
  endedBy: 'final-answer' | 'stopped' | 'request-limit';
  executor: FakeToolExecutor;
}

type ContentBlockParam = Anthropic.ContentBlockParam;

/** What follows the tool results once finish_turn passed (the fleet's wording differs). */
export const SUMMARY_REQUEST_TEXT = 'finish_turn passed. Write your final summary for the user now, without calling any tool.';
/** The is_error result of a call made after finish_turn passed. */
export const CALL_AFTER_FINISH_RESULT = 'Error (finish_already_verified): finish_turn already passed; no tool runs any more.';
/** Answers with calls after finish_turn that are refused and asked again; the next one stops. */
const MAX_SUMMARY_REPROMPTS = 2;

const definitionsByPhase = new Map<Phase, Anthropic.Tool[]>();

function toolDefinitions(phase: Phase): Anthropic.Tool[] {
  const cached = definitionsByPhase.get(phase);
  if (cached) return cached;
  const definitions = toolsForPhase(phase).map((name) => ({
    name,
    description: `The ${name} tool.`,
    input_schema: z.toJSONSchema(toolInputSchemas[name]) as Anthropic.Tool.InputSchema,
  }));
  definitionsByPhase.set(phase, definitions);
  return definitions;
}

function asParams(content: Anthropic.ContentBlock[]): ContentBlockParam[] {
  return content.flatMap((block): ContentBlockParam[] => {
    if (block.type === 'text') return block.text === '' ? [] : [{ type: 'text', text: block.text }];
    if (block.type === 'tool_use') return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    // Thinking blocks go back unchanged: the API checks their signatures.
    if (block.type === 'thinking') return [{ type: 'thinking', thinking: block.thinking, signature: block.signature }];
    if (block.type === 'redacted_thinking') return [{ type: 'redacted_thinking', data: block.data }];
    return [];
  });
}

/** Runs the conversation until a final answer, an unrecoverable stop, or the request limit. */
export async function runSimulatedConversation(options: SimulatedConversationOptions): Promise<SimulatedConversationResult> {
  const executor = new FakeToolExecutor();
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: options.prompt ?? 'Build a small website for Luna Bakery.' }];
  const responses: Anthropic.Message[] = [];
  const toolCalls: SimulatedConversationResult['toolCalls'] = [];
  const phases: Phase[] = [];
  let phase = 'planning' as Phase;
  let finishVerified = false;
  let summaryReprompts = 0;

  const appendUserText = (text: string) => {
    const last = messages[messages.length - 1];
    if (last?.role === 'user' && Array.isArray(last.content)) last.content.push({ type: 'text', text });
    else messages.push({ role: 'user', content: [{ type: 'text', text }] });
  };
  const appendAssistant = (content: ContentBlockParam[]) => {
    const last = messages[messages.length - 1];
    // A continuation extends the assistant message it continues: roles must keep alternating.
    if (last?.role === 'assistant' && Array.isArray(last.content)) last.content.push(...content);
    else if (content.length > 0) messages.push({ role: 'assistant', content });
  };

  for (let index = 0; index < (options.maxRequests ?? 40); index += 1) {
    phases.push(phase);
    const forced = options.forcePlanFirst && index === 0;
    const body: Anthropic.MessageCreateParamsNonStreaming = {
      model: options.model ?? 'claude-sim',
      max_tokens: options.maxTokens ?? 4096,
      system: 'You build small websites.',
      messages,
      tools: toolDefinitions(phase),
      tool_choice: forced ? { type: 'tool', name: 'todo_write' } : { type: 'auto' },
      ...(options.stopSequences ? { stop_sequences: options.stopSequences } : {}),
      ...(options.thinking ? { thinking: options.thinking as unknown as Anthropic.ThinkingConfigParam } : {}),
      ...(options.thinkingBudgetTokens ? { thinking: { type: 'enabled', budget_tokens: options.thinkingBudgetTokens } } : {}),
    };
    const requestOptions = { headers: options.headers ?? {} };
    const response = options.stream
      ? await options.client.messages.stream(body, requestOptions).finalMessage()
      : await options.client.messages.create(body, requestOptions);
    responses.push(response);
    const stopReason = response.stop_reason as string;
    let content = response.content;
    if (stopReason === 'max_tokens' && content[content.length - 1]?.type === 'tool_use') content = content.slice(0, -1);
    const toolUses = content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    const text = content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n\n');

    if (toolUses.length > 0) {
      if (finishVerified && summaryReprompts >= MAX_SUMMARY_REPROMPTS)
        return { responses, messages, toolCalls, phases, finalText: null, endedBy: 'stopped', executor };
      const refused = finishVerified;
      if (refused) summaryReprompts += 1;
      appendAssistant(asParams(content));
      const results: ContentBlockParam[] = toolUses.map((block) => {
        toolCalls.push({ name: block.name, input: block.input, phase });
        const result = refused
          ? { content: CALL_AFTER_FINISH_RESULT, isError: true }
          : block.name === 'ask_user'
            ? { content: options.answer ?? 'Blue and white, please.', isError: false }
            : executor.execute({ name: block.name, input: block.input });
        if (!result.isError) phase = nextPhase(phase, block.name, block.input);
        if (!result.isError && block.name === 'finish_turn') finishVerified = true;
        return { type: 'tool_result', tool_use_id: block.id, content: result.content, ...(result.isError ? { is_error: true } : {}) };
      });
      messages.push({ role: 'user', content: results });
      if (finishVerified) appendUserText(SUMMARY_REQUEST_TEXT);
      else if (stopReason === 'max_tokens') appendUserText('Your message was cut off; continue.');
      continue;
    }
    switch (stopReason) {
      case 'pause_turn':
      case 'max_tokens':
        appendAssistant(asParams(content));
        if (content.length === 0) appendUserText('Continue.');
        continue;
      case 'end_turn':
      case 'stop_sequence':
        if (finishVerified && text !== '') return { responses, messages, toolCalls, phases, finalText: text, endedBy: 'final-answer', executor };
        if (finishVerified) {
          // An empty answer: a placeholder keeps the roles alternating, and the request is repeated
          // in a message of its own.
          appendAssistant([{ type: 'text', text: '(no content)' }]);
          appendUserText('Please write a short summary for the user.');
          continue;
        }
        appendAssistant(asParams(content));
        appendUserText('The build is not finished yet. Continue with the tools, using tool_use blocks.');
        continue;
      default:
        return { responses, messages, toolCalls, phases, finalText: text || null, endedBy: 'stopped', executor };
    }
  }
  return { responses, messages, toolCalls, phases, finalText: null, endedBy: 'request-limit', executor };
}

function nextPhase(phase: Phase, toolName: string, input: unknown): Phase {
  const id = (input as { id?: unknown }).id;
  if (toolName === 'todo_write' && phase === 'planning') return 'building';
  if (toolName === 'todo_complete' && id === 'build' && phase === 'building') return 'verifying';
  return phase;
}
