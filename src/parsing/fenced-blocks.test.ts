import { describe, expect, it } from 'vitest';
import { findFencedBlocks } from './fenced-blocks.js';

describe('findFencedBlocks', () => {
  it('finds closed blocks with their info strings and contents', () => {
    const text = 'intro\n```json\n{"a":1}\n```\nmid\n```\nplain\n```\n';
    const { blocks, endsInsideFence } = findFencedBlocks(text);
    expect(endsInsideFence).toBe(false);
    expect(blocks.map((block) => [block.info, text.slice(block.contentStart, block.contentEnd)])).toEqual([
      ['json', '{"a":1}\n'],
      ['', 'plain\n'],
    ]);
  });

  it('reports text that ends inside an open block', () => {
    expect(findFencedBlocks('```json\n{"tool": "x"').endsInsideFence).toBe(true);
  });

  it('treats a fence line with an info string inside an open block as content', () => {
    const text = '````markdown\n```json\n{}\n```\n````';
    const { blocks } = findFencedBlocks(text);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.info).toBe('markdown');
  });

  it('does not close a block on a line with text after the backticks', () => {
    expect(findFencedBlocks('```\ncode\n``` not a close').endsInsideFence).toBe(true);
  });

  it('does not take four-space-indented backticks for a fence', () => {
    expect(findFencedBlocks('    ```\ncode').endsInsideFence).toBe(false);
  });
});
