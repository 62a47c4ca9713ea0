// The browser's lifecycle with a real Chromium: it starts with the egress flags and none of the
// worker's environment, and a cancelled or timed-out screenshot leaves no Chromium process behind.
// Skipped, with a printed reason, when no Chromium is installed (test/support/chromium.ts). The
// last-resort kill (a browser that does not close) is tested with stand-in processes.
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumForTests } from '../../../test/support/chromium.js';
import { PROXY_ANSWER_HEADER, startGuardedForwardProxy, type GuardedForwardProxy } from '../../safety/guarded-forward-proxy.js';
import { decideBrowserEgress } from '../http/browser-egress-policy.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/start-test-http-server.js';
import { chromiumEgressArguments, killChromiumUsingProfile, runHeadlessChromium } from './run-headless-chromium.js';

const binary = await chromiumForTests('run-headless-chromium');

/** A site whose pages never answer: the browser is still loading when it is stopped. */
let hanging: TestHttpServer;
let proxy: GuardedForwardProxy;

beforeAll(async () => {
  hanging = await startTestHttpServer(() => undefined);
  proxy = await startGuardedForwardProxy({
    checkTarget: (target) => decideBrowserEgress({ target, policy: { publicBaseUrl: hanging.origin, allowlist: '' } }),
  });
});
afterAll(async () => {
  await proxy?.close();
  await hanging?.close();
});

/** Live (not zombie) processes whose command line holds `argument`, with their arguments. */
async function processesWith(argument: string): Promise<Array<{ pid: number; args: string[] }>> {
  const found: Array<{ pid: number; args: string[] }> = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = (await readFile(`/proc/${entry}/cmdline`, 'latin1').catch(() => '')).split('\0');
    if (args.includes(argument)) found.push({ pid: Number(entry), args });
  }
  return found;
}

/** Live (not zombie) members of a process group. */
async function processesInGroup(groupId: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'latin1').catch(() => '');
    // Fields after the command name (which may hold spaces): state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === groupId && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(entry));
  }
  return members;
}

async function eventually<T>(probe: () => Promise<T | null>, timeoutMs: number): Promise<T | null> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function screenshotOf(url: string, timeoutMs: number, signal: AbortSignal) {
  return runHeadlessChromium({
    binary: binary!,
    url,
    width: 800,
    height: 600,
    egress: { proxyUrl: proxy.url, proxyAnswerHeader: PROXY_ANSWER_HEADER, proxyAnswerMarker: proxy.proxyAnswerMarker },
    timeoutMs,
    signal,
  });
}

describe('killChromiumUsingProfile', () => {
  it('kills the process carrying the profile directory and its process group, and nothing else', async () => {
    const profile = `/tmp/buildfleet-screenshot-test-${process.pid}-${Date.now()}/profile`;
    // A stand-in browser: its own process group (as Playwright starts Chromium) with a helper
    // child that does not carry the flag, like a renderer; and a bystander that must survive.
    const keepAlive = 'setInterval(() => {}, 1000)';
    const browser = spawn(
      process.execPath,
      ['-e', `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(keepAlive)}], { stdio: 'ignore' }); ${keepAlive}`, '--', `--user-data-dir=${profile}`],
      { detached: true, stdio: 'ignore' },
    );
    const bystander = spawn(process.execPath, ['-e', keepAlive, '--', `--user-data-dir=${profile}-other`], { stdio: 'ignore' });
    try {
      const group = await eventually(async () => {
        const members = await processesInGroup(browser.pid!);
        return members.length >= 2 ? members : null;
      }, 10_000);
      expect(group?.length, 'the browser and its helper').toBe(2);
      await killChromiumUsingProfile(profile);
      expect(await eventually(async () => ((await processesInGroup(browser.pid!)).length === 0 ? true : null), 5_000)).toBe(true);
      expect(bystander.exitCode).toBeNull();
      expect(await processesWith(`--user-data-dir=${profile}-other`)).toHaveLength(1);
    } finally {
      bystander.kill('SIGKILL');
      try {
        process.kill(-browser.pid!, 'SIGKILL');
      } catch {
        // Gone, as it should be.
      }
    }
  });
});

// A browser on a busy two-core machine (the suite runs two files at once) can take a while.
describe.skipIf(!binary)('runHeadlessChromium (real Chromium)', { timeout: 90_000 }, () => {
  it('starts the browser with the egress flags and without the worker environment, and stops it when cancelled', async () => {
    const marker = `--proxy-server=${proxy.url}`;
    process.env.BUILDFLEET_TEST_SECRET = 'must-not-reach-the-browser';
    const controller = new AbortController();
    // A deadline far beyond the cancellation below, so the answer can only come from the cancellation.
    const pending = screenshotOf(`${hanging.origin}/never`, 60_000, controller.signal);
    const browser = await eventually(async () => (await processesWith(marker))[0] ?? null, 20_000);
    expect(browser, 'the browser process').not.toBeNull();
    for (const flag of chromiumEgressArguments(proxy.url)) expect(browser?.args).toContain(flag);
    const environment = (await readFile(`/proc/${browser?.pid}/environ`, 'latin1').catch(() => '')).split('\0');
    expect(environment.some((entry) => entry.startsWith('BUILDFLEET_TEST_SECRET='))).toBe(false);
    expect(environment.some((entry) => entry.startsWith('REDIS_URL='))).toBe(false);
    delete process.env.BUILDFLEET_TEST_SECRET;

    // How soon is not asserted (a graceful close alone can take seconds on a loaded machine): the
    // call settles as aborted within the test's generous timeout, and no browser outlives it.
    controller.abort(new Error('cancelled'));
    expect(await pending).toEqual({ outcome: 'aborted' });
    expect(await processesWith(marker)).toEqual([]);
  });

  it('gives up at the deadline and leaves no browser running', async () => {
    const marker = `--proxy-server=${proxy.url}`;
    expect(await screenshotOf(`${hanging.origin}/never`, 4_000, new AbortController().signal)).toEqual({ outcome: 'timed_out' });
    expect(await processesWith(marker)).toEqual([]);
  });
});
