import { describe, expect, it } from 'vitest';
import { compareStreamIds } from './stream-ids.js';

describe('compareStreamIds', () => {
  it('compares milliseconds, then sequence, as numbers', () => {
    expect(compareStreamIds('9-0', '10-0')).toBeLessThan(0);
    expect(compareStreamIds('10-2', '10-10')).toBeLessThan(0);
    expect(compareStreamIds('10-10', '10-2')).toBeGreaterThan(0);
    expect(compareStreamIds('1700000000000-5', '1700000000000-5')).toBe(0);
    expect(compareStreamIds('18446744073709551615-1', '18446744073709551615-0')).toBeGreaterThan(0);
  });

  it("takes '-' as before every id", () => {
    expect(compareStreamIds('-', '0-1')).toBeLessThan(0);
    expect(compareStreamIds('1-0', '-')).toBeGreaterThan(0);
  });
});
