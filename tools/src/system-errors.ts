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

/** Node's own `ERR_*` errors that come from what the user gave rather than from a bug. */
const userNodeCodes = new Set(['ERR_SOCKET_BAD_PORT']);

/**
 * An error of the operating system (one with an `E...` code and the system call that failed), or
 * one of the few Node errors a user's value causes. Anything else (a programming error such as
 * `ERR_INVALID_ARG_TYPE`) is not one, and keeps its stack trace.
 */
export function isSystemError(error: unknown): error is SystemError {
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as Partial<SystemError>;
  if (typeof code !== 'string') return false;
  return (/^E[A-Z]+$/.test(code) && typeof syscall === 'string') || userNodeCodes.has(code);
}

/** What the user can do about it, by code. */
const hints: Record<string, string> = {
  EADDRINUSE: 'another program listens there; choose another --port, or stop that program',
  EADDRNOTAVAIL: 'that address is not one of this machine; services listen on 127.0.0.1',
  ENOTDIR: 'a part of the path is a file, not a folder; choose another path',
  EISDIR: 'the path is a folder where a file is needed',
  EEXIST: 'something already exists at that path; choose another path',
  EACCES: 'permission denied; choose a path this user may write',
  ECONNREFUSED: 'nothing listens there; start the service, or check its address',
  ETIMEDOUT: 'no answer in time; check the address and that the service runs',
  ENOTFOUND: 'no such host name; check the address',
  EPERM: 'not permitted; choose a path this user may write',
  EROFS: 'the file system is read-only; choose another path',
  ENOSPC: 'the disk is full; free space, then run the same command again (with --resume where the command has it)',
  EMFILE: 'too many open files; lower --concurrency or raise the limit (ulimit -n)',
  ERR_SOCKET_BAD_PORT: 'a port is a whole number from 0 to 65535',
};

/**
 * A problem of the machine or the network rather than of what was asked: exit code 1, like other
 * infrastructure errors.
 */
const machineCodes = new Set([
  'ENOSPC',
  'EMFILE',
  'ENFILE',
  'EIO',
  'ENOMEM',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/** Hints for a port that cannot be listened on (`listen`, `bind`), which differ from a path's. */
const portHints: Record<string, string> = {
  EACCES: 'ports below 1024 need privileges; choose another --port',
  EPERM: 'not permitted to listen there; choose another --port',
};

/** The line printed for a system error, and the exit code (2 for what the user can change, 1 for the machine). */
export function describeSystemError(error: SystemError): { message: string; exitCode: 1 | 2 } {
  const onPort = error.syscall === 'listen' || error.syscall === 'bind';
  const hint = (onPort ? portHints[error.code] : undefined) ?? hints[error.code];
  return {
    message: hint ? `${error.message} (${hint})` : error.message,
    exitCode: machineCodes.has(error.code) ? 1 : 2,
  };
}
