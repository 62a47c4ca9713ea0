import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { readRunAsset } from '../../engine/index.js';
import { setColorsTool } from '../build/set-colors.js';
import { regenOgTool } from './regen-og.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('regenog');
});
afterAll(async () => harness.close());

describe('regen_og', () => {
  it('stores the SVG as a run asset, not a workspace file, in the theme colors', async () => {
    const run = await harness.newRun({ phase: 'verifying' });
    await harness.call(setColorsTool, { primary: '#aa0000', background: '#fafafa', text: '#222222' }, await harness.contextFor(run.id));
    const filesBefore = await harness.store.listFiles(run.id);
    const output = await harness.call(regenOgTool, { title: 'Rosie & Co', subtitle: 'Bread <daily>' }, await harness.contextFor(run.id));
    const svg = await readRunAsset({ engine: harness.store, runId: run.id, name: 'og-image.svg' });
    expect(output).toEqual({ path: 'og-image.svg', bytes: Buffer.byteLength(svg ?? '') });
    expect(svg).toContain('width="1200" height="630"');
    expect(svg).toContain('Rosie &#38; Co');
    expect(svg).toContain('Bread &#60;daily&#62;');
    expect(svg).toContain('fill="#fafafa"');
    expect(await harness.store.listFiles(run.id)).toEqual(filesBefore);
    const again = await harness.call(regenOgTool, { title: 'Rosie & Co', subtitle: 'Bread <daily>' }, await harness.contextFor(run.id));
    expect(again).toEqual(output);
  });
});
