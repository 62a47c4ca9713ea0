import { describe, expect, it } from 'vitest';
import type { TrailEntry, TodoState } from '../engine/index.js';
import { evaluateFinishGate } from './finish-gate.js';

const doneTodos: TodoState[] = [
  { id: 'pages', title: 'Write the pages', phase: 'build', done: true },
  { id: 'check', title: 'Check the live site', phase: 'verify', done: true },
];

let sequence = 0;
function entry(tool: string, phase: TrailEntry['phase'], ok = true): TrailEntry {
  sequence += 1;
  return { tool, ok, phase, turn: sequence, toolUseId: `toolu_${sequence}` };
}

const completeTrail = (): TrailEntry[] => [
  entry('todo_write', 'planning'),
  entry('write_file', 'building'),
  entry('write_file', 'building'),
  entry('write_file', 'building'),
  entry('deploy', 'building'),
  entry('publish', 'verifying'),
];

describe('evaluateFinishGate', () => {
  it('passes a run that planned, built, deployed and published', () => {
    expect(evaluateFinishGate({ todos: doneTodos, trail: completeTrail() })).toEqual({ passed: true, missing: [] });
  });

  it('asks for a plan when there are no todos', () => {
    const result = evaluateFinishGate({ todos: [], trail: completeTrail() });
    expect(result.passed).toBe(false);
    expect(result.missing).toEqual(['Write a plan first: call todo_write with the steps of the build.']);
  });

  it('names every todo that is not done', () => {
    const todos: TodoState[] = [
      { id: 'pages', title: 'Write the pages', phase: 'build', done: false },
      { id: 'check', title: 'Check the live site', phase: 'verify', done: false },
    ];
    const result = evaluateFinishGate({ todos, trail: completeTrail() });
    expect(result.missing).toEqual([
      'Finish todo "pages" (Write the pages), then mark it with todo_complete.',
      'Finish todo "check" (Check the live site), then mark it with todo_complete.',
    ]);
  });

  it('requires three successful write_file calls in the building phase', () => {
    const trail = [
      entry('write_file', 'building'),
      entry('write_file', 'building', false),
      entry('write_file', 'verifying'),
      entry('write_file', 'building'),
      entry('deploy', 'building'),
      entry('publish', 'verifying'),
    ];
    const result = evaluateFinishGate({ todos: doneTodos, trail });
    expect(result.missing).toEqual(['Write at least 3 site files with write_file while building (2 written so far).']);
  });

  it('requires a deploy', () => {
    const trail = completeTrail().filter((item) => item.tool !== 'deploy');
    const result = evaluateFinishGate({ todos: doneTodos, trail });
    expect(result.missing).toEqual([
      'Deploy the site with deploy.',
      'Publish the latest deployment with publish (pass the deploy_id that deploy returned).',
    ]);
  });

  it('ignores a failed deploy', () => {
    const trail = completeTrail().map((item) => (item.tool === 'deploy' ? { ...item, ok: false } : item));
    expect(evaluateFinishGate({ todos: doneTodos, trail }).missing).toContain('Deploy the site with deploy.');
  });

  it.each(['write_file', 'delete_file', 'set_colors', 'set_fonts', 'fetch_image'])(
    'requires a new deploy after %s changed the workspace',
    (tool) => {
      const trail = [...completeTrail(), entry(tool, 'verifying')];
      const result = evaluateFinishGate({ todos: doneTodos, trail });
      expect(result.missing).toEqual([
        `Deploy again: the workspace changed (${tool}) after the last deploy.`,
        'Publish the latest deployment with publish (pass the deploy_id that deploy returned).',
      ]);
    },
  );

  it('does not count a failed workspace change', () => {
    const trail = [...completeTrail(), entry('write_file', 'verifying', false)];
    expect(evaluateFinishGate({ todos: doneTodos, trail }).passed).toBe(true);
  });

  it('requires publish', () => {
    const trail = completeTrail().filter((item) => item.tool !== 'publish');
    expect(evaluateFinishGate({ todos: doneTodos, trail }).missing).toEqual([
      'Publish the latest deployment with publish (pass the deploy_id that deploy returned).',
    ]);
  });

  it('requires publish to come after the deploy holding the final workspace', () => {
    const trail = [
      ...completeTrail(),
      entry('write_file', 'verifying'),
      entry('deploy', 'verifying'),
    ];
    expect(evaluateFinishGate({ todos: doneTodos, trail }).missing).toEqual([
      'Publish the latest deployment with publish (pass the deploy_id that deploy returned).',
    ]);
    trail.push(entry('publish', 'verifying'));
    expect(evaluateFinishGate({ todos: doneTodos, trail }).passed).toBe(true);
  });

  it('refuses a stale deployment being live when deployments are given', () => {
    const result = evaluateFinishGate({
      todos: doneTodos,
      trail: completeTrail(),
      deployments: { latest: 'dep_new', live: 'dep_old' },
    });
    expect(result.missing).toEqual(['Publish the latest deployment: dep_new is the newest, but dep_old is live.']);
    expect(
      evaluateFinishGate({ todos: doneTodos, trail: completeTrail(), deployments: { latest: 'dep_a', live: 'dep_a' } })
        .passed,
    ).toBe(true);
  });

  it('lists everything for an empty run', () => {
    const result = evaluateFinishGate({ todos: [], trail: [] });
    expect(result.passed).toBe(false);
    expect(result.missing).toHaveLength(4);
  });
});
