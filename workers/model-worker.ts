// Model worker process: takes model-turn jobs. All logic lives in src/.
import { runWorkerProcess } from '../src/fleet/start-roles.js';

await runWorkerProcess('model');
