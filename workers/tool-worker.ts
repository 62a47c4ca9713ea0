// Tool worker process: takes tool-call jobs. All logic lives in src/.
import { runWorkerProcess } from '../src/fleet/start-roles.js';

await runWorkerProcess('tool');
