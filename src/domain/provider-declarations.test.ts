import { describe, expect, it } from 'vitest';
import { parseProviderDeclarations } from './provider-declarations.js';

describe('parseProviderDeclarations', () => {
  it('names the rule a provider name breaks, not zod’s “Invalid key in record”', () => {
    expect(() => parseProviderDeclarations('{"VLLM":{"kind":"openai_compatible"}}')).toThrow(
      'VLLM: is no provider name (lowercase letters, digits, _ and -, at most 64, starting with a letter or digit)',
    );
    expect(parseProviderDeclarations('{"vllm-1":{"kind":"openai_compatible"}}')).toEqual({ 'vllm-1': { kind: 'openai_compatible' } });
  });
});
