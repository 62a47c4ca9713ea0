// The fleet's model catalog (src/domain/model-catalog.ts, through model-capabilities.ts) against
// the simulator's catalog (src/sim/model-catalog.ts), written separately from the documentation:
// every fact the turn protocol acts on must agree, so a catalog entry that the API would answer
// with a 400 (a forced tool_choice, a manual budget, a `disabled` thinking) or with a surprise shape
// (thinking by default, text between tool calls inside thinking blocks) fails here rather than in
// production.
import { describe, expect, it } from 'vitest';
import { lookupModelCapabilities } from '../../src/domain/model-capabilities.js';
import { MODEL_RECORDS } from '../../src/domain/model-catalog.js';
import { lookupModel, modelAcceptsThinkingType } from '../../src/sim/model-catalog.js';

describe('the fleet’s model catalog and the simulated API', () => {
  it('agree on every model: lifecycle, limits, thinking modes and display, effort, tool_choice, mid-conversation changes, strict tools, caching, tokenizer', () => {
    for (const record of MODEL_RECORDS) {
      for (const model of [record.id, ...record.aliases]) {
        const simulated = lookupModel({ model });
        expect(simulated, model).toBeDefined();
        if (!simulated) continue;
        expect(simulated.lifecycle === 'retired', model).toBe(record.lifecycle.status === 'retired');
        if (record.lifecycle.status === 'retired') continue;
        const { capabilities } = lookupModelCapabilities({ model, overrides: {} });
        expect(capabilities.maxOutputTokens, model).toBe(simulated.maxOutputTokens);
        expect(capabilities.contextWindowTokens, model).toBe(simulated.contextWindowTokens);
        expect(capabilities.thinking, `${model} manual thinking`).toBe(modelAcceptsThinkingType({ model, type: 'enabled' }));
        expect(capabilities.adaptiveThinking, `${model} adaptive thinking`).toBe(modelAcceptsThinkingType({ model, type: 'adaptive' }));
        expect(capabilities.thinksByDefault, `${model} thinks by default`).toBe(simulated.thinkingWhenOmitted === 'adaptive');
        expect(capabilities.thinkingOff === 'between_tools', `${model} between_tools`).toBe(modelAcceptsThinkingType({ model, type: 'between_tools' }));
        const disabling = { omit: 'accepted', disabled: 'accepted', disabled_at_effort_high_or_below: 'effort_high_or_below', between_tools: 'refused', impossible: 'refused' }[capabilities.thinkingOff];
        expect(disabling, `${model} disabling`).toBe(simulated.disabling);
        expect(capabilities.defaultThinkingDisplay, `${model} display`).toBe(simulated.defaultDisplay);
        expect(capabilities.thinkingDisplays.includes('updates'), `${model} updates display`).toBe(simulated.updatesDisplay);
        expect(capabilities.progressUpdates, `${model} progress updates`).toBe(simulated.progressUpdates !== 'none');
        expect([...capabilities.effortLevels], `${model} effort`).toEqual([...simulated.effortLevels]);
        expect(capabilities.defaultEffort, `${model} default effort`).toBe(simulated.defaultEffort);
        expect(capabilities.forcedToolChoice, `${model} forced tool_choice`).toBe(simulated.forcedToolChoice !== 'refused');
        expect(capabilities.assistantPrefill, `${model} prefill`).toBe(!simulated.refusesPrefill);
        expect(capabilities.midConversationSystemMessages, `${model} system messages`).toBe(simulated.midConversationSystemMessages);
        expect(capabilities.midConversationToolChanges, `${model} tool changes`).toBe(simulated.midConversationToolChanges);
        expect(capabilities.strictTools, `${model} strict tools`).toBe(simulated.strictTools);
        expect(capabilities.minimumCacheableTokens, `${model} cache minimum`).toBe(simulated.minimumCacheableTokens);
        expect(capabilities.tokenizer, `${model} tokenizer`).toBe(simulated.tokenizer);
      }
    }
  });
});
