import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { runSimulatedConversation } from './simulated-conversation.js';
import { startSimulator } from './simulator-server.js';
import { drawAnswerTiming, generationTimeMs, TIMING_PROFILES } from './timing-profile.js';

const WRITE: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'claude-sim',
  max_tokens: 8000,
  messages: [{ role: 'user', content: 'Build a site for Luna Bakery.' }],
  tools: [{ name: 'write_file', description: 'write', input_schema: { type: 'object', properties: {} } }],
  tool_choice: { type: 'tool', name: 'write_file' },
};

describe('timing profiles', () => {
  it('draw TTFT and rate within the profile, deterministically; overrides win', () => {
    for (const profile of Object.values(TIMING_PROFILES)) {
      const timing = drawAnswerTiming({ profile, seed: 1, transcriptHash: 'a' });
      expect(timing).toEqual(drawAnswerTiming({ profile, seed: 1, transcriptHash: 'a' }));
      expect(timing.ttftMs).toBeGreaterThanOrEqual(profile.ttftMs.min);
      expect(timing.ttftMs).toBeLessThanOrEqual(profile.ttftMs.max);
      expect(timing.tokensPerSecond).toBeGreaterThanOrEqual(profile.tokensPerSecond.min);
    }
    expect(generationTimeMs({ timing: drawAnswerTiming({ profile: TIMING_PROFILES.instant, seed: 1, transcriptHash: 'a' }), outputTokens: 9000 })).toBe(0);
    const realistic = drawAnswerTiming({ profile: TIMING_PROFILES.realistic, seed: 1, transcriptHash: 'a', ttftMs: 1000, tokensPerSecond: 80 });
    // The measurement: 8,000 tokens at 60-100 tokens/s take 80-130 s.
    expect(generationTimeMs({ timing: realistic, outputTokens: 8000 })).toBe(101_000);
  });

  it('a JSON answer waits the whole generation time; a stream spreads it over its deltas', async () => {
    const simulator = await startSimulator({ siteSize: 'realistic', ttftMs: 100, tokensPerSecond: 20_000 });
    try {
      const client = new Anthropic({ apiKey: 'sim', baseURL: simulator.url, maxRetries: 0 });
      let started = Date.now();
      const created = await client.messages.create(WRITE);
      const expectedMs = 100 + (created.usage.output_tokens / 20_000) * 1000;
      expect(expectedMs).toBeGreaterThan(250);
      expect(Date.now() - started).toBeGreaterThanOrEqual(expectedMs - 20);

      started = Date.now();
      const stream = client.messages.stream(WRITE);
      let firstDeltaMs = 0;
      stream.on('streamEvent', (event) => {
        if (event.type === 'content_block_delta' && firstDeltaMs === 0) firstDeltaMs = Date.now() - started;
      });
      await stream.finalMessage();
      expect(firstDeltaMs).toBeGreaterThanOrEqual(90);
      expect(Date.now() - started).toBeGreaterThanOrEqual(expectedMs - 20);
    } finally {
      await simulator.close();
    }
  });

  it('the realistic profile writes pages of thousands of tokens: ~6-9k output tokens for the write_file turn', async () => {
    const simulator = await startSimulator({ siteSize: 'realistic' });
    try {
      const client = new Anthropic({ apiKey: 'sim', baseURL: simulator.url, maxRetries: 0 });
      const result = await runSimulatedConversation({ client, headers: { 'x-buildfleet-text-calls': 'off' }, maxTokens: 16_000 });
      expect(result.endedBy).toBe('final-answer');
      const writeTurn = result.responses.find((response) => response.content.filter((block) => block.type === 'tool_use' && block.name === 'write_file').length === 4);
      expect(writeTurn?.usage.output_tokens).toBeGreaterThan(6000);
      expect(writeTurn?.usage.output_tokens).toBeLessThan(9000);
      const index = result.executor.files.get('index.html') ?? '';
      expect(index.length / 4).toBeGreaterThan(3000);
      expect(index).toMatch(/<link rel="stylesheet" href="styles.css">[\s\S]*<img src="logo.svg"/);
      expect(index.match(/<section/g)?.length).toBeGreaterThanOrEqual(5);
      expect(result.executor.files.get('styles.css')).toContain('#1f6feb');
      // Deterministic from seed and brief.
      const again = await runSimulatedConversation({ client, headers: { 'x-buildfleet-text-calls': 'off' }, maxTokens: 16_000 });
      expect(again.executor.files.get('index.html')).toBe(index);
    } finally {
      await simulator.close();
    }
  });
});
