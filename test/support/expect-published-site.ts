// What every whole-build test asks of its run: it built a site — succeeded, its finish verified,
// deployed — and the sites origin serves it.
import { expect } from 'vitest';
import type { RunRecord } from '../../src/engine/index.js';

export async function expectPublishedSite({ run, sitesUrl }: { run: RunRecord; sitesUrl: string }): Promise<void> {
  expect(run.error).toBeNull();
  expect(run.status).toBe('succeeded');
  expect(run.finishVerified).toBe(true);
  expect(run.liveDeploy).not.toBeNull();
  const page = await fetch(`${sitesUrl}/sites/${run.id}/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<html');
}
