import { ConfigError } from '@harness-s/core';
import type { EnvironmentOptions } from './environment-entry.js';
import { findEnvironment } from './environments.js';

/** What a command listening for SIGINT and SIGTERM sees of them. */
export interface Interrupts {
  /** Aborted by the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** Stops listening: call once the command has closed what it opened. */
  release(): void;
  /** Runs `close` (what the command opened) still listening, then stops listening, even if it throws. */
  releaseAfter(close: () => Promise<unknown> | undefined): Promise<void>;
  /**
   * What to throw for an error the work ended with: once interrupted, a ConfigError (`interrupted;
   * <continuation>`) saying how to continue, instead of the error the abort caused; else the error.
   */
  explain(error: unknown, continuation: string): unknown;
}

export interface InterruptOptions {
  /**
   * What may be left behind if the process exits before it has closed everything, said when a
   * second interrupt makes it exit at once (e.g. how to remove leftover containers).
   */
  leftovers?: string | undefined;
  /**
   * A repeated signal within this many ms of the first is the same interrupt relayed by a wrapper
   * (npm, tsx) and changes nothing; a later one exits at once. Default 1000.
   */
  relayWindowMs?: number;
  /** Where the notice of a second interrupt goes (default stderr). */
  write?: (line: string) => void;
}

/** When a notice of a first interrupt was last written: listeners nested in one process say it once. */
let noticed = Number.NEGATIVE_INFINITY;

/**
 * Listens for SIGINT and SIGTERM for a command's whole life, its closing included. The first
 * aborts `signal`, with a notice, so the work stops and the command closes what it opened
 * (containers, database roles, servers) before exiting. Without a listener Node would exit at
 * once on a signal that comes while the command closes, leaving those behind; here it comes to
 * nothing. A signal repeated after `relayWindowMs` exits at once (status 130), saying what may be
 * left.
 */
export function listenForInterrupts(options: InterruptOptions = {}): Interrupts {
  const controller = new AbortController();
  const relayWindowMs = options.relayWindowMs ?? 1000;
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  let first: number | undefined;
  const onSignal = (name: NodeJS.Signals) => {
    if (first === undefined) {
      first = Date.now();
      if (first - noticed > relayWindowMs) {
        noticed = first;
        write(`harness-s: ${name}: stopping and closing what the run opened (again, a second later, to exit at once)`);
      }
      controller.abort(new Error(`interrupted by ${name}`));
      return;
    }
    if (Date.now() - first < relayWindowMs) return;
    write(
      `harness-s: ${name} again: exiting before closing everything${options.leftovers ? `; ${options.leftovers}` : ''}`,
    );
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const release = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return {
    signal: controller.signal,
    release,
    async releaseAfter(close) {
      try {
        await close();
      } finally {
        release();
      }
    },
    explain(error, continuation) {
      if (!controller.signal.aborted) return error;
      return new ConfigError(`interrupted; ${continuation}`, { code: 'interrupted' });
    },
  };
}

/**
 * How to remove what an environment's interrupted run may leave, with the run's options, for
 * `InterruptOptions.leftovers`.
 */
export function leftoversOf(env: string, options: EnvironmentOptions = {}): string | undefined {
  const leftovers = findEnvironment(env)?.leftovers;
  return typeof leftovers === 'function' ? leftovers(options) : leftovers;
}
