import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { setFontsTool } from './set-fonts.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('setfonts');
});
afterAll(async () => harness.close());

describe('set_fonts', () => {
  it('writes the font stacks into theme.css, escaped', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const input = { heading: 'Playfair Display, serif', body: 'Evil"; } * { display:none' };
    const output = await harness.call(setFontsTool, input, await harness.contextFor(run.id));
    expect(output.variables).toEqual({
      '--font-heading': '"Playfair Display", serif',
      '--font-body': '"Evil\\"; } * { display:none", sans-serif',
    });
    const css = (await harness.store.readFile(run.id, 'theme.css')) ?? '';
    expect(css).toContain('--font-heading: "Playfair Display", serif;');
    // The hostile name stays inside one string: the only rule block is :root.
    expect(css.replace(/"(?:[^"\\]|\\.)*"/g, '""').match(/\{/g)).toHaveLength(1);
    const again = await harness.call(setFontsTool, input, await harness.contextFor(run.id));
    expect(again).toEqual(output);
  });
});
