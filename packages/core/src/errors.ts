/**
 * Typed errors. Every error the system raises on purpose carries a `category` that tells the
 * runner what to do with it:
 *
 * - `infrastructure`: the environment, a sandbox or a model server failed (database unreachable,
 *   container died, HTTP 503). The attempt is retried on fresh resources and is never scored or
 *   trained on.
 * - `policy`: the policy did something the loop cannot continue from (used for control flow
 *   inside the agent loop; it ends the episode and is scored as a failure).
 * - `config`: a bad flag, option or harness spec. Not retried; the command stops with the message.
 * - `input`: bad data (a task file, a trajectory file). Not retried; names the file and line.
 */
export type ErrorCategory = 'infrastructure' | 'policy' | 'config' | 'input';

const marker = Symbol.for('harness-s.error');

export interface HarnessErrorOptions {
  /** Machine-readable code, e.g. `db-unreachable`, `bad-flag`. */
  code: string;
  cause?: unknown;
  /** Overrides the category default (infrastructure errors are retryable by default). */
  retryable?: boolean;
}

export class HarnessError extends Error {
  readonly [marker] = true;
  readonly category: ErrorCategory;
  readonly code: string;
  readonly retryable: boolean;

  constructor(category: ErrorCategory, message: string, options: HarnessErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HarnessError';
    this.category = category;
    this.code = options.code;
    this.retryable = options.retryable ?? category === 'infrastructure';
  }

  /** True for any error raised by this project, across package copies. */
  static isInstance(value: unknown): value is HarnessError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/** The environment, a sandbox or a model server failed; retried, never scored. */
export class InfrastructureError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions) {
    super('infrastructure', message, options);
    this.name = 'InfrastructureError';
  }
  static override isInstance(value: unknown): value is InfrastructureError {
    return HarnessError.isInstance(value) && value.category === 'infrastructure';
  }
}

/** A bad flag, option or harness spec. */
export class ConfigError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions) {
    super('config', message, options);
    this.name = 'ConfigError';
  }
  static override isInstance(value: unknown): value is ConfigError {
    return HarnessError.isInstance(value) && value.category === 'config';
  }
}

/** Bad input data: a task file, a trajectory file, an action list. */
export class InputError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions) {
    super('input', message, options);
    this.name = 'InputError';
  }
  static override isInstance(value: unknown): value is InputError {
    return HarnessError.isInstance(value) && value.category === 'input';
  }
}

/** The policy produced something the loop cannot continue from; scored as a failure. */
export class PolicyError extends HarnessError {
  constructor(message: string, options: HarnessErrorOptions) {
    super('policy', message, options);
    this.name = 'PolicyError';
  }
  static override isInstance(value: unknown): value is PolicyError {
    return HarnessError.isInstance(value) && value.category === 'policy';
  }
}

/** A request an HTTP server refuses: the status it answers with, and the message it gives. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** A short, single-line description of any thrown value, for records and observations. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * Runs `read` (which reads something out of the file at `path`) and names the file in a config or
 * input error it throws: `path: message`, the same category and code. Other errors pass unchanged.
 */
export function namingFile<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!HarnessError.isInstance(error) || (error.category !== 'config' && error.category !== 'input')) throw error;
    if (error.message.startsWith(`${path}`)) throw error;
    const Named = error.category === 'config' ? ConfigError : InputError;
    throw new Named(`${path}: ${error.message}`, { code: error.code, cause: error });
  }
}

/**
 * An error of a plug-in's code (a router's, a ranker's) named by who failed where:
 * `${what}: ${message}`, the original as its cause. An error of the run's own kinds, or an
 * interrupt, is returned as it is; an error of the system (a missing file) keeps what tells it for
 * one (`code`, `errno`, `syscall`, `path`).
 */
export function failureOf(what: string, error: unknown): unknown {
  if (HarnessError.isInstance(error) || (error instanceof Error && error.name === 'AbortError')) return error;
  const named = new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  if (error instanceof Error)
    for (const key of ['code', 'errno', 'syscall', 'path'])
      if (key in error) Object.assign(named, { [key]: (error as unknown as Record<string, unknown>)[key] });
  return named;
}

/** A value as a message shows it: as JSON, cut at 80 characters; `absent` for undefined. */
export function shownValue(value: unknown, absent = 'undefined'): string {
  const text = value === undefined ? absent : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
