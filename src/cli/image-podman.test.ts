import { describe, expect, it } from 'vitest';
import { withEmptyDefaultUlimits } from './image-podman.js';

describe('withEmptyDefaultUlimits', () => {
  it('creates the [containers] table in an empty or missing file', () => {
    expect(withEmptyDefaultUlimits('')).toBe('[containers]\ndefault_ulimits = []\n');
  });

  it('adds the setting under an existing [containers] table, leaving the rest as it was', () => {
    const text = '[engine]\ncgroup_manager = "cgroupfs"\n\n[containers]\nlog_driver = "k8s-file"\n';
    expect(withEmptyDefaultUlimits(text)).toBe('[engine]\ncgroup_manager = "cgroupfs"\n\n[containers]\ndefault_ulimits = []\nlog_driver = "k8s-file"\n');
  });

  it('appends the table after other tables when there is none', () => {
    expect(withEmptyDefaultUlimits('[engine]\nx = 1')).toBe('[engine]\nx = 1\n[containers]\ndefault_ulimits = []\n');
  });
});
