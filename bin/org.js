#!/usr/bin/env node
// Entry point of the `org` command: runs the compiled CLI.
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`org: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
