// The stop-reason matrix (issue #3) through real Redis, the real queues, the API and the
// simulator over HTTP: every scenario reaches its expected state and the simulator never had
// to reject a request of the fleet's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/cli/api-client.js';
import { formatScenarioTable, runScenarioMatrix } from '../../src/cli/run-scenarios.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

let harness: InProcessFleet;
beforeAll(async () => {
  harness = await startInProcessFleet({ label: 'matrix', modelWorkers: 2, toolWorkers: 2 });
});
afterAll(async () => {
  await harness?.close();
});

describe('every stop reason handled', () => {
  it('runs the whole scenario matrix to the expected terminal states', async () => {
    const rows = await runScenarioMatrix(new ApiClient(harness.apiUrl, harness.apiKey), { timeoutMs: 30_000, concurrency: 6 });
    const table = formatScenarioTable(rows);
    expect(rows.filter((row) => !row.passed), table).toEqual([]);
    const rejected = harness.simulator.requests.filter((request) => request.status >= 400 && request.status < 500);
    expect(rejected.map((request) => request.status), 'the simulator answered 4xx to the fleet').toEqual([]);
  }, 120_000);
});
