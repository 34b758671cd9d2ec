import { type FileHandle, mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { ConfigError, InputError } from './errors.js';
import { parseWith, streamJsonl } from './jsonl.js';
import { lockRunFolder, processAlive } from './run-lock.js';
import { Trajectory } from './trajectory.js';

/** File names inside a run folder. */
export const runFiles = {
  config: 'config.json',
  trajectories: 'trajectories.jsonl',
  summary: 'summary.json',
} as const;

let temporaryCount = 0;

/** Replaces a file in one step: a reader, or a kill, never meets it half written. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // Unique per write: two writes of one file at once (in one process or its threads) never share it.
  const temporary = `${path}.${process.pid}.${threadId}.${++temporaryCount}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, path);
}

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

export async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${path}: ${(error as Error).message}`, { code: 'file-unreadable', cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(`${path}: not valid JSON (${(error as Error).message})`, { code: 'bad-json', cause: error });
  }
}

/**
 * What a folder's entries are, for an error that refuses to write there: `a run (config.json)`, `a
 * pool (index.json)`, or the first few names.
 */
export function folderHolds(names: readonly string[]): string {
  if (names.includes('config.json')) return 'a run (config.json)';
  if (names.includes('index.json')) return 'a pool (index.json)';
  return `other files (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''})`;
}

/**
 * A run folder: its resolved config, an append-only `trajectories.jsonl`, and a summary.
 * Trajectories are appended one whole line per write, in the order they finish, so a run killed
 * at any moment leaves every finished trajectory on disk (at worst a torn last line, which
 * readers drop).
 */
export class RunStore {
  private constructor(
    readonly dir: string,
    private readonly handle: FileHandle,
    private readonly lock: { release(): Promise<void> },
  ) {}

  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  private checkOpen(what: string): void {
    if (this.closed)
      throw new ConfigError(`RunStore of ${this.dir} is closed: ${what} needs a store open (RunStore.create)`, {
        code: 'store-closed',
      });
  }

  /** Creates (or reopens for appending) a run folder and writes its config. */
  static async create(dir: string, config: unknown): Promise<RunStore> {
    await mkdir(dir, { recursive: true });
    // One writer at a time: a second process continuing the same run is refused.
    const lock = await lockRunFolder(dir);
    try {
      await writeJsonAtomic(join(dir, runFiles.config), config);
      const path = join(dir, runFiles.trajectories);
      await dropTornLine(path);
      const handle = await open(path, 'a');
      return new RunStore(dir, handle, lock);
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Appends one trajectory; writes are serialised so lines never interleave. */
  appendTrajectory(trajectory: Trajectory): Promise<void> {
    this.checkOpen('appending a trajectory');
    const line = `${JSON.stringify(trajectory)}\n`;
    this.queue = this.queue.then(async () => {
      await this.handle.write(line);
    });
    return this.queue;
  }

  async writeSummary(summary: unknown): Promise<void> {
    this.checkOpen('writing the summary');
    await this.queue;
    await writeJsonAtomic(join(this.dir, runFiles.summary), summary);
  }

  /** Ends the store: its lines on disk, the folder's lock released. Closing twice does nothing. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    await this.handle.sync().catch(() => undefined);
    await this.handle.close();
    await this.lock.release();
  }
}

/**
 * Cuts a JSONL file back to its last whole line: the part of a line a kill or a full disk cut off
 * (which readers drop) would otherwise have the next appended line glued to it, and the file
 * would no longer read.
 */
export async function dropTornLine(path: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const { bytesRead } = await handle.read(chunk, 0, end - start, start);
      const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
      if (newline >= 0) {
        end = start + newline + 1;
        break;
      }
      end = start;
    }
    if (end < size) {
      await handle.truncate(end);
      await handle.sync();
    }
  } finally {
    await handle.close();
  }
}

/** Reads and validates every trajectory of a run folder (or of a trajectories file). */
export async function readTrajectories(path: string): Promise<Trajectory[]> {
  const trajectories: Trajectory[] = [];
  for await (const trajectory of streamTrajectories(path)) trajectories.push(trajectory);
  return trajectories;
}

/**
 * The trajectories of a run folder (or of a trajectories file) one at a time, validated, in file
 * order. A torn last line (a writer killed mid-line, or one still writing it) is left out, and
 * `onTornTail` told its file and line.
 */
export async function* streamTrajectories(
  path: string,
  options: { onTornTail?: (file: string, line: number) => void } = {},
): AsyncGenerator<Trajectory> {
  const file = path.endsWith('.jsonl') ? path : join(path, runFiles.trajectories);
  const onTornTail = options.onTornTail;
  const read = {
    tolerateTornTail: true,
    ...(onTornTail ? { onTornTail: (line: number) => onTornTail(file, line) } : {}),
  };
  for await (const { line, value } of streamJsonl(file, read)) yield parseWith(Trajectory, value, `${file}:${line}`);
}

/**
 * Removes what writers of `path` killed mid-write left (`writeLinesAtomic`'s temporary files of a
 * process of this machine that is gone), which could be as large as the file; a live writer's stays.
 */
async function removeStaleTemporaries(path: string): Promise<void> {
  const prefix = `${basename(path)}.${hostname()}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const [pid] = name.slice(prefix.length).split('.');
    if (/^\d+$/.test(pid ?? '') && !processAlive(Number(pid)))
      await rm(join(dirname(path), name), { force: true }).catch(() => undefined);
  }
}

/**
 * Writes lines to a file atomically (a temporary file renamed into place), as they come, without
 * holding them all in memory: a reader sees the old file or the whole new one. Returns how many.
 */
export async function writeLinesAtomic(path: string, lines: AsyncIterable<string> | Iterable<string>): Promise<number> {
  await mkdir(dirname(path), { recursive: true });
  await removeStaleTemporaries(path);
  const temporary = `${path}.${hostname()}.${process.pid}.${threadId}.${++temporaryCount}.tmp`;
  const handle = await open(temporary, 'w');
  let count = 0;
  let renamed = false;
  try {
    let pending: string[] = [];
    let size = 0;
    const flush = async () => {
      const data = Buffer.from(pending.join(''));
      for (let at = 0; at < data.length; ) at += (await handle.write(data, at)).bytesWritten;
      pending = [];
      size = 0;
    };
    for await (const line of lines) {
      pending.push(line.endsWith('\n') ? line : `${line}\n`);
      size += line.length;
      count += 1;
      if (size >= 1 << 20) await flush();
    }
    await flush();
    await handle.sync();
    await handle.close();
    await rename(temporary, path);
    renamed = true;
  } finally {
    if (!renamed) {
      // The error that got here is the one to report, not a second one from cleaning up.
      await handle.close().catch(() => undefined);
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }
  return count;
}
