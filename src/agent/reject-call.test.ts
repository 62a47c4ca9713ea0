import { describe, expect, it } from 'vitest';
import { evaluateFinishGate } from '../domain/finish-gate.js';
import { toolsForPhase } from '../domain/profile.js';
import { rejectCall } from './reject-call.js';
import { findAgent, SITE_BUILDER } from '../agents/index.js';

const builder = findAgent(SITE_BUILDER)!;

const planning = toolsForPhase('planning');

describe('a call before the plan exists', () => {
  it('cannot build: a build tool is refused in the planning tier, with what unlocks it', () => {
    const rejection = rejectCall({
      agent: builder,
      call: { toolUseId: 'toolu_1', name: 'write_file', input: { path: 'index.html', content: '<h1>Hi</h1>' }, parseMode: 'native' },
      allowed: planning,
      planMissing: true,
      finishVerified: false,
    });
    expect(rejection).toMatchObject({ code: 'tool_not_available', message: expect.stringContaining('Write the plan with todo_write first') });
  });

  it('is nudged towards the plan when it stops instead', () => {
    expect(evaluateFinishGate({ todos: [], trail: [] }).missing[0]).toBe('Write a plan first: call todo_write with the steps of the build.');
  });

  it('runs todo_write itself, and says nothing about the plan once one exists', () => {
    const plan = { toolUseId: 'toolu_2', name: 'todo_write', input: { todos: [{ id: 'a', title: 'A', phase: 'build' }] }, parseMode: 'native' as const };
    expect(rejectCall({ agent: builder, call: plan, allowed: planning, planMissing: true, finishVerified: false })).toBeNull();
    const later = rejectCall({ agent: builder, call: { toolUseId: 'toolu_3', name: 'publish', input: {}, parseMode: 'native' }, allowed: toolsForPhase('building'), planMissing: false, finishVerified: false });
    expect(later?.message).not.toContain('todo_write first');
  });
});

describe('a call after the finish gate passed', () => {
  it('is refused whatever it is, even a valid call of the tier: nothing runs after the site is final', () => {
    const verifying = toolsForPhase('verifying');
    for (const call of [
      { toolUseId: 'toolu_4', name: 'read_session', input: {}, parseMode: 'native' as const },
      { toolUseId: 'toolu_5', name: 'publish', input: { deploy_id: 'dep_1' }, parseMode: 'native' as const },
      { toolUseId: 'toolu_6', name: 'write_file', input: { path: 'x.html', content: 'x' }, parseMode: 'native' as const },
    ]) {
      expect(rejectCall({ agent: builder, call, allowed: verifying, planMissing: false, finishVerified: true })).toEqual({
        code: 'finish_already_verified',
        message: expect.stringContaining('Write your final summary for the user as plain text.'),
      });
    }
    expect(rejectCall({ agent: builder, call: { toolUseId: 'toolu_7', name: 'read_session', input: {}, parseMode: 'native' }, allowed: verifying, planMissing: false, finishVerified: false })).toBeNull();
  });
});
