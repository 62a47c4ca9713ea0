// The fleet's capability table (src/domain/model-capabilities.ts) against the simulator's catalog
// (src/sim/model-catalog.ts), which follows the documented API: every model the fleet may send
// manual thinking to accepts it, and the limits agree, so a table entry that the API would answer
// with a 400 fails here rather than in production.
import { describe, expect, it } from 'vitest';
import { DOCUMENTED_MODEL_CAPABILITIES } from '../../src/domain/model-capabilities.js';
import { lookupModel, modelAcceptsThinkingType } from '../../src/sim/model-catalog.js';

describe('the capability table and the simulated API', () => {
  it('agree on every documented model: max output, context window, manual thinking', () => {
    for (const [model, capabilities] of Object.entries(DOCUMENTED_MODEL_CAPABILITIES)) {
      const description = lookupModel({ model });
      expect(description, model).toBeDefined();
      expect(capabilities.maxOutputTokens, model).toBe(description?.maxOutputTokens);
      expect(capabilities.contextWindowTokens, model).toBe(description?.contextWindowTokens);
      // `thinking: true` means the fleet sends {type: 'enabled', budget_tokens}; adaptive-only models stay out.
      expect(capabilities.thinking, model).toBe(modelAcceptsThinkingType({ model, type: 'enabled' }));
    }
  });
});
