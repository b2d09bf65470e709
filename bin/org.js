#!/usr/bin/env node
// Entry point of the `org` command: runs the compiled CLI, bundled (scripts/bundle-cli.mjs).
import { exitQuietlyOnClosedPipe, main } from '../dist/bundle/main.js';

// `org … | head`: a reader that stops early is not an error.
exitQuietlyOnClosedPipe(process.stdout);
exitQuietlyOnClosedPipe(process.stderr);

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`org: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
