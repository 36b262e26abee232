#!/usr/bin/env node
// The `evroom` command. The CLI is TypeScript (src-main/cli); tsx compiles it on the fly so
// `npx evroom` works straight after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src-main/cli/main.ts');
process.exitCode = await runCli(process.argv.slice(2));
