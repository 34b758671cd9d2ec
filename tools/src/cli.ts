#!/usr/bin/env node
import { HarnessError } from '@harness-s/core';
import { loadPlugins } from './plugins.js';
import { createProgram } from './program.js';

try {
  // Plug-ins first: their environments are among --env's choices.
  await loadPlugins();
  await createProgram().parseAsync(process.argv);
} catch (error) {
  if (HarnessError.isInstance(error)) {
    process.stderr.write(`harness-s: error: ${error.message}\n`);
    process.exitCode = error.category === 'infrastructure' ? 1 : 2;
  } else {
    throw error;
  }
}
