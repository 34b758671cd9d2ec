#!/usr/bin/env node
import { ConfigError, HarnessError } from '@harness-s/core';
import { CommanderError } from 'commander';
import { invokedFrom } from './invoked-from.js';
import { loadedPluginEnvironments, loadPlugins } from './plugins.js';
import { createProgram } from './program.js';
import { describeSystemError, isSystemError } from './system-errors.js';

/** Said after commander refuses an environment name: where the others come from. */
function environmentHint(error: CommanderError): string {
  if (error.code !== 'commander.invalidArgument' || !/'--envs? </.test(error.message)) return '';
  const plugins = process.env['HARNESS_S_PLUGINS']?.trim();
  return plugins
    ? `(the plug-ins in HARNESS_S_PLUGINS add: ${loadedPluginEnvironments().join(', ') || 'none'})\n`
    : '(more environments come from plug-ins: HARNESS_S_PLUGINS=<module or package>; see docs/adding-an-environment.md)\n';
}

/**
 * Exit codes: 0 done; 1 an infrastructure error (a service, a container, a network call, a full
 * disk); 2 any other error (a bad flag or value, bad input data, a folder that is not what the command needs);
 * 70 an internal error (a bug in harness-s or a plug-in), with its stack; 130 interrupted (Ctrl-C or
 * SIGTERM), the run's work kept for `--resume`.
 */
try {
  // `npm run harness-s -- ...` runs in the repository's root: the paths typed are from where npm was run.
  const userFolder = invokedFrom();
  if (userFolder) {
    try {
      process.chdir(userFolder);
    } catch (error) {
      throw new ConfigError(
        `npm run harness-s: cannot work in ${userFolder}, where npm was run: ${(error as Error).message}`,
        {
          code: 'bad-folder',
        },
      );
    }
    // Commands this one starts (an --on-batch hook running harness-s) are not npm's script.
    delete process.env['npm_lifecycle_event'];
    delete process.env['INIT_CWD'];
  }
  // A reader that went away (`| head`) stops only the printing: the run still ends, closing what it
  // opened (containers, its folder's lock), instead of crashing on the write.
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  // Plug-ins first: their environments are among --env's choices.
  await loadPlugins();
  const program = createProgram();
  // Commander's own usage errors (an unknown flag, a value out of its choices) exit 2 like ours.
  for (const command of [program, ...program.commands]) command.exitOverride();
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.stderr.write(environmentHint(error));
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (HarnessError.isInstance(error)) {
    process.stderr.write(`harness-s: error: ${error.message}\n`);
    process.exitCode = error.code === 'interrupted' ? 130 : error.category === 'infrastructure' ? 1 : 2;
  } else if (isSystemError(error)) {
    const { message, exitCode } = describeSystemError(error);
    process.stderr.write(`harness-s: error: ${message}\n`);
    process.exitCode = exitCode;
  } else {
    // Neither bad input nor a service: a bug. Its stack, for the report, and a code of its own.
    const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
    process.stderr.write(
      `harness-s: internal error (a bug in harness-s or in a plug-in, not in the input or a service; report it with what follows):\n${text}\n`,
    );
    process.exitCode = 70;
  }
}
