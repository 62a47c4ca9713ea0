import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { MAX_WORKSPACE_FILES } from '../../engine/index.js';
import { setColorsTool } from './set-colors.js';
import { setFontsTool } from './set-fonts.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('setcolors');
});
afterAll(async () => harness.close());

const colors = { primary: '#AA3300', background: '#ffffff', text: '#111111' };

describe('set_colors', () => {
  it('writes theme.css with the colors as custom properties', async () => {
    const run = await harness.newRun({ phase: 'building' });
    const output = await harness.call(setColorsTool, { ...colors, accent: '#00ff00' }, await harness.contextFor(run.id));
    expect(output).toEqual({
      path: 'theme.css',
      colors: { primary: '#aa3300', background: '#ffffff', text: '#111111', accent: '#00ff00' },
      variables: {
        '--color-primary': '#aa3300',
        '--color-background': '#ffffff',
        '--color-text': '#111111',
        '--color-accent': '#00ff00',
      },
    });
    const css = await harness.store.readFile(run.id, 'theme.css');
    expect(css).toContain('--color-primary: #aa3300;');
  });

  it('is idempotent and keeps fonts set earlier', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await harness.call(setFontsTool, { heading: 'Lora', body: 'Inter' }, await harness.contextFor(run.id));
    const first = await harness.call(setColorsTool, colors, await harness.contextFor(run.id));
    const cssAfterFirst = await harness.store.readFile(run.id, 'theme.css');
    const second = await harness.call(setColorsTool, colors, await harness.contextFor(run.id));
    expect(second).toEqual(first);
    expect(await harness.store.readFile(run.id, 'theme.css')).toBe(cssAfterFirst);
    expect(cssAfterFirst).toContain('--font-body: "Inter", sans-serif;');
    expect(cssAfterFirst).toContain('--color-text: #111111;');
  });

  it('ends with both parts when set_colors and set_fonts run in parallel', async () => {
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const run = await harness.newRun({ phase: 'building' });
      const [colorContext, fontContext] = await Promise.all([harness.contextFor(run.id), harness.contextFor(run.id)]);
      await Promise.all([
        harness.call(setColorsTool, colors, colorContext),
        harness.call(setFontsTool, { heading: 'Lora', body: 'Inter' }, fontContext),
      ]);
      const css = await harness.store.readFile(run.id, 'theme.css');
      expect(css).toContain('--color-primary');
      expect(css).toContain('--font-heading');
    }
  });

  it('counts theme.css against the workspace file limit', async () => {
    const run = await harness.newRun({ phase: 'building' });
    await Promise.all(Array.from({ length: MAX_WORKSPACE_FILES }, (_, index) => harness.writeFile(run.id, `f${index}.html`, 'x')));
    await expect(harness.call(setColorsTool, colors, await harness.contextFor(run.id))).rejects.toMatchObject({
      code: 'workspace_file_limit',
    });
  });
});
