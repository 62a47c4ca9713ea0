#!/usr/bin/env node
// The `buildfleet` command. Each subcommand lives in src/cli/ or the module it drives; this file
// only dispatches.
import { runCli } from './cli/run-cli.js';

// Finite commands return their exit code; long-running ones (dev, api, worker, sim) never resolve.
process.exit(await runCli(process.argv.slice(2)));
