import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { parseToolOutputModes, resolveToolOutputMode } from './tool-output-modes.js';

describe('BUILDFLEET_TOOL_OUTPUT_MODES', () => {
  it('parses tool=mode pairs', () => {
    expect(parseToolOutputModes(' fetch_image=degrade , fetch_url_live=fail_closed,')).toEqual({ fetch_image: 'degrade', fetch_url_live: 'fail_closed' });
    expect(parseToolOutputModes('')).toEqual({});
  });

  it.each([
    ['fetch_image', 'not tool=mode'],
    ['fetch_imgae=degrade', 'not a tool name'],
    ['fetch_image=lenient', 'is not one of'],
  ])('refuses %j', (value, message) => {
    expect(() => parseToolOutputModes(value)).toThrow(message);
    expect(() => loadConfig({ BUILDFLEET_TOOL_OUTPUT_MODES: value })).toThrow(/BUILDFLEET_TOOL_OUTPUT_MODES/);
  });

  it('overrides the contract default only for the tools it names', () => {
    expect(resolveToolOutputMode({ tool: 'fetch_image', defaultMode: 'degrade', configured: 'fetch_image=fail_closed' })).toBe('fail_closed');
    expect(resolveToolOutputMode({ tool: 'deploy', defaultMode: 'fail_closed', configured: 'fetch_image=degrade' })).toBe('fail_closed');
  });

  it('loads the kill switch settings with their defaults', () => {
    const config = loadConfig({});
    expect(config.BUILDFLEET_KILLSWITCH_THRESHOLD).toBe(0.25);
    expect(config.BUILDFLEET_KILLSWITCH_MIN_VOLUME).toBe(20);
    expect(config.BUILDFLEET_KILLSWITCH_WINDOW_MS).toBe(60_000);
    expect(config.BUILDFLEET_KILLSWITCH_COOLDOWN_MS).toBe(0);
    expect(() => loadConfig({ BUILDFLEET_KILLSWITCH_THRESHOLD: '0' })).toThrow(/BUILDFLEET_KILLSWITCH_THRESHOLD/);
  });
});
