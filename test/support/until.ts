// Polling for a condition in the integration tests: no fixed sleeps, a generous bound (a loaded
// 2-core machine), and a message naming what never came.

/** Resolves with the probe's first truthy value; fails after `timeoutMs` naming `what`. */
export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
