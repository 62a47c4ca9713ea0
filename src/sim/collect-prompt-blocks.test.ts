import { describe, expect, it } from 'vitest';
import { collectPromptBlocks } from './collect-prompt-blocks.js';

const AUTO = { type: 'auto', disableParallelToolUse: false } as const;
const DISABLED = { type: 'disabled' } as const;

describe('collectPromptBlocks', () => {
  it('automatic caching marks the last block a breakpoint may sit on, never a thinking block', () => {
    const blocks = collectPromptBlocks({
      body: {
        cache_control: { type: 'ephemeral' },
        messages: [
          { role: 'user', content: 'Build a site.' },
          { role: 'assistant', content: [{ type: 'text', text: 'Sure.' }, { type: 'thinking', thinking: 'hm', signature: 'c2ln' }] },
        ],
      },
      toolChoice: AUTO,
      thinking: DISABLED,
    });
    expect(blocks.map((block) => [block.path, block.cacheTtl])).toEqual([
      ['messages.0.content.0', null],
      ['messages.1.content.0', '5m'],
      ['messages.1.content.1', null],
    ]);
  });

  it('leaves every cache_control, nested ones included, out of the block text', () => {
    const [block] = collectPromptBlocks({
      body: {
        messages: [
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok', cache_control: { type: 'ephemeral', ttl: '1h' } }], cache_control: { type: 'ephemeral' } }],
          },
        ],
      },
      toolChoice: AUTO,
      thinking: DISABLED,
    });
    expect(block?.text).toBe('{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"}]}');
    expect(block?.markers.map((marker) => marker.ttl)).toEqual(['1h', '5m']);
    expect(block?.cacheTtl).toBe('1h');
  });

  it('strips earlier turns’ thinking only for a model that keeps just the current turn’s, and only with thinking on', () => {
    const body = {
      messages: [
        { role: 'user', content: 'Build a site.' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'plan', signature: 'c2ln' }, { type: 'text', text: 'Done.' }] },
        { role: 'user', content: 'Thanks, now add a page.' },
      ],
    };
    const enabled = { type: 'enabled', budgetTokens: 1024, display: 'summarized' } as const;
    const paths = (options: { keeps: boolean; thinking: typeof enabled | typeof DISABLED }) =>
      collectPromptBlocks({ body, toolChoice: AUTO, thinking: options.thinking, keepsThinkingOfEarlierTurns: options.keeps }).map((block) => block.path);
    expect(paths({ keeps: false, thinking: enabled })).toEqual(['messages.0.content.0', 'messages.1.content.1', 'messages.2.content.0']);
    expect(paths({ keeps: true, thinking: enabled })).toHaveLength(4);
    expect(paths({ keeps: false, thinking: DISABLED })).toHaveLength(4);
  });
});
