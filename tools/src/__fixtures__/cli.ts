import { vi } from 'vitest';
import { createProgram } from '../program.js';

/** Runs the command line in process, its output swallowed. */
export async function cli(args: string[]): Promise<void> {
  const quiet = [vi.spyOn(process.stdout, 'write'), vi.spyOn(process.stderr, 'write')].map((spy) =>
    spy.mockImplementation(() => true),
  );
  try {
    await createProgram().parseAsync(['node', 'harness-s', ...args]);
  } finally {
    for (const spy of quiet) spy.mockRestore();
  }
}
