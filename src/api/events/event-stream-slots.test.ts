import { describe, expect, it } from 'vitest';
import { EventStreamSlots } from './event-stream-slots.js';

describe('EventStreamSlots', () => {
  it('gives each tenant its own slots up to the cap, and a slot back once', () => {
    const slots = new EventStreamSlots(2);
    const first = slots.tryAcquire('acme');
    const second = slots.tryAcquire('acme');
    expect(first && second).toBeTruthy();
    expect(slots.tryAcquire('acme')).toBeNull();
    expect(slots.tryAcquire('globex')).not.toBeNull();
    first!();
    first!();
    expect(slots.openStreams('acme')).toBe(1);
    expect(slots.tryAcquire('acme')).not.toBeNull();
    expect(slots.tryAcquire('acme')).toBeNull();
  });

  it('has no cap at 0', () => {
    const slots = new EventStreamSlots(0);
    for (let index = 0; index < 1_000; index += 1) expect(slots.tryAcquire('acme')).not.toBeNull();
    expect(slots.openStreams('acme')).toBe(1_000);
  });
});
