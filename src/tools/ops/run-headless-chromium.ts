// Renders one page in headless Chromium, driven by playwright-core, with a guarded forward proxy
// (src/safety/guarded-forward-proxy.ts) as the browser's only way out.
//
// Why playwright-core rather than `chromium --screenshot` (the CLI mode this replaced): the CLI
// gives no say over service workers, reports nothing about which document it rendered, and
// cannot wait for the page's own requests after load. Here service workers are blocked
// (`serviceWorkers: 'block'`), the main frame's last navigation is watched (so a screenshot of
// the guard's refusal page is reported as a refusal, not a success), and the page gets a bounded
// network-idle wait before the screenshot. Egress itself does not depend on Playwright: it is
// the Chromium flags below that send every request through the proxy, which checks it.
//
// playwright-core never downloads a browser: executablePath names the system's Chromium
// (Debian's /usr/bin/chromium). It is imported on first use, so a tool worker that never takes a
// screenshot does not load it.
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Request as PageRequest, Response as PageResponse } from 'playwright-core';

export interface ChromiumEgress {
  /** http://127.0.0.1:<port> of the guarded forward proxy. */
  proxyUrl: string;
  /** The proxy's answer header and marker (PROXY_ANSWER_HEADER, proxyAnswerMarker). */
  proxyAnswerHeader: string;
  proxyAnswerMarker: string;
}

/** The document the main frame showed last: its URL, and how it was answered. */
export interface MainDocument {
  url: string;
  /** HTTP status, or null when the navigation failed without a response. */
  status: number | null;
  /** Answered by the proxy itself (a refusal or an unreachable upstream), not by a site. */
  answeredByGuard: boolean;
  /** Chromium's network error for a failed navigation, e.g. net::ERR_TUNNEL_CONNECTION_FAILED. */
  failure: string | null;
}

export type HeadlessScreenshotResult =
  | { outcome: 'captured'; png: Buffer; document: MainDocument | null }
  /** The first document could not be loaded (Chromium shows its error page): nothing to shoot. */
  | { outcome: 'navigation_failed'; document: MainDocument }
  | { outcome: 'timed_out' }
  | { outcome: 'aborted' }
  | { outcome: 'failed'; detail: string };

/** After load, how long the page's own requests (fetch, lazy images) may run before the shot. */
export const NETWORK_IDLE_WAIT_MS = 3_000;
/** How long a graceful close may take before the browser's processes are killed. */
const CLOSE_GRACE_MS = 5_000;
const DETAIL_MAX_CHARACTERS = 400;

/** Chromium flags that make the proxy the only route out and close the side channels. */
export function chromiumEgressArguments(proxyUrl: string): string[] {
  return [
    `--proxy-server=${proxyUrl}`,
    // Chromium sends localhost, 127/8, [::1], 169.254/16 and fe80::/10 directly, whatever the
    // proxy settings ("implicit bypass rules"); `<-loopback>` subtracts them, so those requests
    // reach the guard too. https://chromium.googlesource.com/chromium/src/+/HEAD/net/docs/proxy.md
    '--proxy-bypass-list=<-loopback>',
    // Nothing resolves names but the proxy (a fixed proxy is given host names, not addresses), so
    // Chromium's own resolver answers NOTFOUND for everything: a request that found a way around
    // the proxy would not get an address, and DNS prefetch (<link rel=dns-prefetch>, which
    // resolves outside the proxy) sends no query. Playwright does the same for SOCKS proxies.
    // (This is what turns DNS prefetch off: Chromium 156 no longer knows --dns-prefetch-disable.)
    '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
    // WebRTC may only use UDP through a proxy, i.e. none: no STUN/ICE to loopback or LAN peers
    // (TURN over TCP then goes through the proxy, and is judged there). The switch Chromium reads
    // is webrtc-ip-handling-policy (chrome/common/chrome_switches.cc); `force-webrtc-…` is not
    // one: with it alone, Chromium 156 still sent STUN to the test's UDP canary.
    '--webrtc-ip-handling-policy=disable_non_proxied_udp',
    // QUIC is UDP and would not use the HTTP proxy.
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-pings',
    // Containers often give /dev/shm 64 MB, too little for Chromium's shared memory.
    '--disable-dev-shm-usage',
  ];
}

function settleOnAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  // The step left behind rejects once the browser closes; that rejection is expected, not unhandled.
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function describe(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/\u001b\[[0-9;]*m/g, '');
  // Playwright's message: what failed on the first line, then "Browser logs:" (the browser's
  // output, `[pid=N][err] …`) and a "Call log:" repeating them. The browser's last error lines
  // say why it did not start; the command line it logs says nothing.
  const [summary = '', ...rest] = text.split('\n');
  const browserLog = rest.join('\n').split('Call log:')[0] ?? '';
  const errors = [...browserLog.matchAll(/\]\[err\] (.+)/g)].map((match) => (match[1] ?? '').trim());
  const detail = [summary.trim(), ...errors.slice(-3)].filter((line) => line !== '').join(' | ');
  return detail.length > DETAIL_MAX_CHARACTERS ? `${detail.slice(0, DETAIL_MAX_CHARACTERS)}…` : detail;
}

/** Kills what is left of a browser started with this profile directory: Playwright starts it as
 * its own process group, so the group goes with it. Only processes carrying our unique
 * --user-data-dir are touched. Linux (/proc); elsewhere nothing is found. */
export async function killChromiumUsingProfile(profileDirectory: string): Promise<void> {
  const marker = `--user-data-dir=${profileDirectory}`;
  const entries = await readdir('/proc').catch(() => [] as string[]);
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'latin1').catch(() => '');
    if (!commandLine.split('\0').includes(marker)) continue;
    const pid = Number(entry);
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Not a group leader, or already gone.
      }
    }
  }
}

async function closeChromium(launching: Promise<BrowserContext>, profileDirectory: string): Promise<void> {
  const closing = launching
    .then((context) => context.close())
    .then(
      () => true,
      () => true,
    );
  await Promise.race([closing, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), CLOSE_GRACE_MS).unref())]);
  // Also after a clean close: a helper that outlived its browser must not keep running.
  await killChromiumUsingProfile(profileDirectory);
}

/** Takes a viewport screenshot of url in a fresh profile and closes the browser, within timeoutMs. */
export async function runHeadlessChromium({
  binary,
  url,
  width,
  height,
  egress,
  timeoutMs,
  signal,
}: {
  binary: string;
  url: string;
  width: number;
  height: number;
  egress: ChromiumEgress;
  timeoutMs: number;
  signal: AbortSignal;
}): Promise<HeadlessScreenshotResult> {
  if (signal.aborted) return { outcome: 'aborted' };
  const deadline = AbortSignal.timeout(timeoutMs);
  const stop = AbortSignal.any([signal, deadline]);
  const startedAt = Date.now();
  const remaining = () => Math.max(1, timeoutMs - (Date.now() - startedAt));
  const workDirectory = await mkdtemp(join(tmpdir(), 'buildfleet-screenshot-'));
  const profileDirectory = join(workDirectory, 'profile');
  const homeDirectory = join(workDirectory, 'home');
  let launching: Promise<BrowserContext> | null = null;
  try {
    await mkdir(homeDirectory);
    const { chromium } = await settleOnAbort(import('playwright-core'), stop);
    launching = chromium.launchPersistentContext(profileDirectory, {
      executablePath: binary,
      headless: true,
      // The worker runs as an unprivileged user in a container without the namespaces Chromium's
      // sandbox needs (and as root in development); the proxy, not the sandbox, is the egress guard.
      chromiumSandbox: false,
      args: chromiumEgressArguments(egress.proxyUrl),
      // The worker's environment holds secrets (REDIS_URL, API keys): the browser gets none of it.
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: homeDirectory, LANG: 'C.UTF-8' },
      // The worker handles its own signals (graceful shutdown); Playwright's handlers would close
      // browsers and exit the process on SIGINT/SIGTERM.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: remaining(),
      viewport: { width, height },
      deviceScaleFactor: 1,
      serviceWorkers: 'block',
      acceptDownloads: false,
    });
    const context = await settleOnAbort(launching, stop);
    const page = context.pages()[0] ?? (await settleOnAbort(context.newPage(), stop));
    const watched: { document: MainDocument | null } = { document: null };
    const isMainNavigation = (request: PageRequest) => {
      try {
        return request.isNavigationRequest() && request.frame() === page.mainFrame();
      } catch {
        return false; // service worker requests have no frame
      }
    };
    page.on('response', (response: PageResponse) => {
      if (!isMainNavigation(response.request())) return;
      const answeredByGuard = response.headers()[egress.proxyAnswerHeader] === egress.proxyAnswerMarker;
      watched.document = { url: response.url(), status: response.status(), answeredByGuard, failure: null };
    });
    page.on('requestfailed', (request: PageRequest) => {
      const failure = request.failure()?.errorText ?? 'failed';
      // ERR_ABORTED: the navigation was cancelled (by another one, a download, window.stop()) and
      // the frame keeps the document it had.
      if (!isMainNavigation(request) || failure === 'net::ERR_ABORTED') return;
      watched.document = { url: request.url(), status: null, answeredByGuard: false, failure };
    });
    try {
      await settleOnAbort(page.goto(url, { waitUntil: 'load', timeout: remaining() }), stop);
    } catch (error) {
      if (stop.aborted || (error instanceof Error && error.name === 'TimeoutError')) throw error;
      // The navigation failed (Chromium shows its error page) or the page replaced it with
      // another one: whatever the main frame holds now decides.
      await settleOnAbort(page.waitForLoadState('load', { timeout: remaining() }), stop);
      const failed = watched.document;
      if (failed?.failure) return { outcome: 'navigation_failed', document: failed };
    }
    await settleOnAbort(
      page.waitForLoadState('networkidle', { timeout: Math.min(NETWORK_IDLE_WAIT_MS, remaining()) }).catch(() => undefined),
      stop,
    );
    // A navigation the page started after load (meta refresh, script) gets to finish, so the
    // screenshot and `document` describe the same page.
    await settleOnAbort(page.waitForLoadState('load', { timeout: remaining() }), stop);
    const png = await settleOnAbort(page.screenshot({ type: 'png', timeout: remaining() }), stop);
    return { outcome: 'captured', png, document: watched.document };
  } catch (error) {
    if (signal.aborted) return { outcome: 'aborted' };
    if (deadline.aborted || (error instanceof Error && error.name === 'TimeoutError')) return { outcome: 'timed_out' };
    return { outcome: 'failed', detail: describe(error) };
  } finally {
    if (launching) await closeChromium(launching, profileDirectory);
    await rm(workDirectory, { recursive: true, force: true });
  }
}
