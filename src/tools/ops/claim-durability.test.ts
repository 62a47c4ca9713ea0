// WAIT-based durability of the effect claims (src/engine/effects/claim-durability.ts), with
// BUILDFLEET_REDIS_WAIT_REPLICAS=1. On the suite's one server there is no replica: the claim is
// refused as not durable (a transient error, retried by the queue) and the effect after it — the
// SiteStore's published pointer — does not happen. On the suite's cluster
// (BUILDFLEET_TEST_REDIS_CLUSTER=1) every primary has a replica: deploy and publish go through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolTestHarness, type ToolTestHarness } from '../testing/tool-test-harness.js';
import { isCluster } from '../../redis/redis-connection.js';
import { siteStoreOf } from '../../sites/site-store-of-config.js';
import { ClaimNotDurableError } from '../../engine/index.js';
import { ToolError } from '../tool-types.js';
import { deployTool } from '../build/deploy.js';
import { publishTool } from './publish.js';

let harness: ToolTestHarness;
beforeAll(async () => {
  harness = await createToolTestHarness('claimwait');
});
afterAll(async () => harness.close());

const waitConfig = { BUILDFLEET_REDIS_WAIT_REPLICAS: 1, BUILDFLEET_REDIS_WAIT_TIMEOUT_MS: 200 };
const onCluster = () => isCluster(harness.redis);

describe('claim durability (BUILDFLEET_REDIS_WAIT_REPLICAS=1)', () => {
  it('deploys and publishes once a replica has the claim (cluster)', async (test) => {
    if (!onCluster()) test.skip();
    const run = await harness.newRun({ phase: 'verifying' });
    await harness.writeFile(run.id, 'index.html', '<h1>bakery</h1>');
    const context = await harness.contextFor(run.id, { config: waitConfig });
    const deployed = await harness.call(deployTool, {}, context);
    expect(deployed.files).toEqual(['index.html']);
    const published = await harness.call(publishTool, { deploy_id: deployed.deploy_id }, await harness.contextFor(run.id, { config: waitConfig }));
    expect(published.deploy_id).toBe(deployed.deploy_id);
    expect((await harness.store.getRun(run.id))?.liveDeploy).toBe(deployed.deploy_id);
    expect((await siteStoreOf(context.config).readPublished(run.id))?.deployId).toBe(deployed.deploy_id);
  });

  it('refuses a claim no replica acknowledged as transient, and the effect does not run (one server)', async (test) => {
    if (onCluster()) test.skip();
    const run = await harness.newRun({ phase: 'verifying' });
    await harness.writeFile(run.id, 'index.html', '<h1>bakery</h1>');
    // The deployment is recorded without the wait (as a fleet with WAIT off would have).
    const deployed = await harness.call(deployTool, {}, await harness.contextFor(run.id));
    const context = await harness.contextFor(run.id, { config: waitConfig });
    const attempt = harness.call(publishTool, { deploy_id: deployed.deploy_id }, context);
    await expect(attempt).rejects.toBeInstanceOf(ClaimNotDurableError);
    // Not a ToolError: runToolJob rethrows it and the queue retries the call (infrastructure).
    await expect(attempt).rejects.not.toSatisfy((error) => ToolError.isInstance(error));
    await expect(attempt).rejects.toMatchObject({ code: 'redis_claim_not_durable', message: expect.stringContaining('0 of 1 replicas') });
    expect(await siteStoreOf(context.config).readPublished(run.id)).toBeNull();
    // A deploy's record is not acknowledged either: its URL is not handed out.
    await harness.writeFile(run.id, 'about.html', '<p>about</p>');
    await expect(harness.call(deployTool, {}, await harness.contextFor(run.id, { config: waitConfig }))).rejects.toBeInstanceOf(ClaimNotDurableError);
  });
});
