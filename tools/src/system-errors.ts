/**
 * Errors Node raises for the operating system (a folder that cannot be made, a port in use) reach
 * the user as one line that says what failed and what to do, never as a stack trace.
 */

/** An error of Node's with a code of its own (`ENOTDIR`, `EADDRINUSE`, `ERR_SOCKET_BAD_PORT`...). */
export interface SystemError extends Error {
  code: string;
  syscall?: string;
  path?: string;
  address?: string;
  port?: number;
}

export function isSystemError(error: unknown): error is SystemError {
  return (
    error instanceof Error &&
    typeof (error as { code?: unknown }).code === 'string' &&
    /^(E[A-Z]+|ERR_[A-Z_]+)$/.test((error as SystemError).code)
  );
}

/** What the user can do about it, by code. */
const hints: Record<string, string> = {
  EADDRINUSE: 'another program listens there; choose another --port, or stop that program',
  EADDRNOTAVAIL: 'that address is not one of this machine; services listen on 127.0.0.1',
  ENOTDIR: 'a part of the path is a file, not a folder; choose another path',
  EISDIR: 'the path is a folder where a file is needed',
  EEXIST: 'something already exists at that path; choose another path',
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied; choose a path this user may write',
  EPERM: 'not permitted; choose a path this user may write',
  EROFS: 'the file system is read-only; choose another path',
  ENOSPC: 'the disk is full; free space, then run the same command again (with --resume where the command has it)',
  EMFILE: 'too many open files; lower --concurrency or raise the limit (ulimit -n)',
  ERR_SOCKET_BAD_PORT: 'a port is a whole number from 0 to 65535',
};

/** A problem of the machine rather than of what was asked: exit code 1, like other infrastructure errors. */
const machineCodes = new Set(['ENOSPC', 'EMFILE', 'ENFILE', 'EIO', 'ENOMEM']);

/** The line printed for a system error, and the exit code (2 for what the user can change, 1 for the machine). */
export function describeSystemError(error: SystemError): { message: string; exitCode: 1 | 2 } {
  const hint = hints[error.code];
  return {
    message: hint ? `${error.message} (${hint})` : error.message,
    exitCode: machineCodes.has(error.code) ? 1 : 2,
  };
}
