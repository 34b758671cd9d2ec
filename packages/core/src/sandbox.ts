/**
 * The sandbox contract: where untrusted agent commands run. Environments that execute code or
 * shell commands (SWE-Gym) implement it with Docker containers or local processes.
 *
 * The session (what an agent's actions touch: `exec`, files) is split from the lifecycle
 * (`reset`, `destroy`), so one warm sandbox can serve many episodes.
 */
export interface ExecOptions {
  /** Working directory inside the sandbox. */
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
  /** Kills the whole process tree at the limit; partial output is kept. */
  timeoutMs?: number;
  /** Output beyond this many characters is cut to head and tail, with a count of what was cut. */
  maxOutputChars?: number;
}

export interface ExecResult {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Characters of output cut away by `maxOutputChars`. */
  truncatedChars: number;
  durationMs: number;
}

export interface Sandbox {
  /** Unique id (container id, directory). */
  readonly id: string;
  /**
   * Runs a command. A command that fails, times out or prints too much is an ordinary result;
   * only a sandbox that cannot run commands at all throws an InfrastructureError.
   */
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: string): Promise<void>;
  /** Brings the sandbox back to its initial state, much faster than a new sandbox. */
  reset(): Promise<void>;
  /** Releases everything; safe to call twice. */
  destroy(): Promise<void>;
}

/** Creates sandboxes; lets cleanup find leftovers of killed runs. */
export interface SandboxProvider {
  readonly kind: string;
  create(options: { image?: string; labels?: Record<string, string> }): Promise<Sandbox>;
  /** Removes every sandbox this provider created for `runId` (or for any run when omitted). */
  cleanup(runId?: string): Promise<number>;
}
