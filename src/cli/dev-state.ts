// Where `buildfleet dev` records the fleet it started, for the other commands to find. Kept apart
// from dev-fleet.ts so the client commands (and the production image, which has no scripts/ nor
// redis-server) never load the private-Redis launcher.
import { join } from 'node:path';
import { PROJECT_ROOT } from './spawn-role.js';

export const DEV_STATE_DIR = join(PROJECT_ROOT, '.buildfleet');
export const DEV_STATE_FILE = join(DEV_STATE_DIR, 'dev.json');
