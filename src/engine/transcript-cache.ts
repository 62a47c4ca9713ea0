// The transcripts of recent runs, parsed, in this process: a turn reads only the messages
// committed since this process last saw the run, instead of the whole list re-read and re-parsed
// every turn. Bounded by the bytes of the messages' JSON (least recently used run goes first), so
// thousands of runs in flight cost at most the bound; a miss simply re-reads the list.

interface Entry {
  messages: unknown[];
  /** The last message's JSON as stored: compared on the next read to notice a rewrite. */
  lastRaw: string;
  bytes: number;
}

export class TranscriptCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(runId: string): { messages: readonly unknown[]; lastRaw: string; bytes: number } | undefined {
    const entry = this.entries.get(runId);
    if (!entry || entry.messages.length === 0) return undefined;
    // Map order is the LRU order: a read moves the run to the back.
    this.entries.delete(runId);
    this.entries.set(runId, entry);
    return entry;
  }

  /** The whole transcript as read from Redis. */
  /** Caches the whole transcript (when it fits) and returns it parsed, for the caller to use
   * whether or not it was kept: a miss parses each message once. */
  replace(runId: string, raws: readonly string[]): { messages: readonly unknown[]; bytes: number } {
    this.forget(runId);
    const entry = { messages: raws.map((raw) => JSON.parse(raw) as unknown), lastRaw: raws[raws.length - 1] ?? '', bytes: sum(raws) };
    if (raws.length > 0) this.store(runId, entry);
    return entry;
  }

  /** Messages appended after the cached ones, which must number `length`; returns the entry
   * (undefined: not cached, or it had changed — the run is forgotten). */
  appendAt(runId: string, length: number, raws: readonly string[]): { messages: readonly unknown[]; bytes: number } | undefined {
    this.appendIfAt(runId, length, raws);
    return this.entries.get(runId);
  }

  /** Appends when the cached transcript has `length` messages (null: whatever it has); anything
   * else means this process missed a change, and the run is forgotten (re-read next time). */
  appendIfAt(runId: string, length: number | null, raws: readonly string[]): void {
    const entry = this.entries.get(runId);
    if (!entry) return;
    if (length !== null && entry.messages.length !== length) return this.forget(runId);
    if (raws.length === 0) return;
    for (const raw of raws) entry.messages.push(JSON.parse(raw) as unknown);
    entry.lastRaw = raws[raws.length - 1]!;
    this.grow(entry, sum(raws));
  }

  /** The last message rewritten (a pause_turn continuation merged into it). */
  replaceLast(runId: string, raw: string): void {
    const entry = this.entries.get(runId);
    if (!entry || entry.messages.length === 0) return;
    entry.messages[entry.messages.length - 1] = JSON.parse(raw) as unknown;
    this.grow(entry, raw.length - entry.lastRaw.length);
    entry.lastRaw = raw;
  }

  forget(runId: string): void {
    const entry = this.entries.get(runId);
    if (!entry) return;
    this.entries.delete(runId);
    this.bytes -= entry.bytes;
  }

  get size(): { runs: number; bytes: number } {
    return { runs: this.entries.size, bytes: this.bytes };
  }

  private store(runId: string, entry: Entry): void {
    if (entry.bytes > this.maxBytes) return;
    this.entries.set(runId, entry);
    this.bytes += entry.bytes;
    this.evict();
  }

  private grow(entry: Entry, bytes: number): void {
    entry.bytes += bytes;
    this.bytes += bytes;
    this.evict();
  }

  private evict(): void {
    for (const [runId] of this.entries) {
      if (this.bytes <= this.maxBytes) return;
      this.forget(runId);
    }
  }
}

function sum(raws: readonly string[]): number {
  let bytes = 0;
  for (const raw of raws) bytes += raw.length;
  return bytes;
}
