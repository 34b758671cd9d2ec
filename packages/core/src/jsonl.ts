import { type FileHandle, open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { z } from 'zod';
import { InputError } from './errors.js';

/** Formats the first zod issue as `field.path: message`. */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}

export interface JsonlReadOptions {
  /** Drop a torn last line instead of refusing the file. */
  tolerateTornTail?: boolean;
  /** Called with the line number of a torn last line that was dropped. */
  onTornTail?: (line: number) => void;
}

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  value: unknown;
}

/**
 * Reads a JSONL file line by line, without holding the file in memory (a run's trajectories may be
 * larger than a string can be). Blank lines are skipped. A line that is not JSON throws an
 * InputError naming the file and line, except a torn last line (a run killed while writing: not
 * JSON, and the file does not end after it with a newline), which `tolerateTornTail` drops
 * (telling `onTornTail` its line number, when given).
 */
export async function* streamJsonl(path: string, options: JsonlReadOptions = {}): AsyncGenerator<JsonlLine> {
  const unreadable = (error: unknown) =>
    new InputError(`cannot read ${path}: ${(error as Error).message}`, { code: 'file-unreadable', cause: error });
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw unreadable(error);
  }
  try {
    const decoder = new StringDecoder('utf8');
    const buffer = Buffer.allocUnsafe(1 << 20);
    let rest = '';
    let line = 0;
    /** One line; `torn` when it is the file's last and no newline ends it. */
    const take = (raw: string, torn: boolean): JsonlLine | undefined => {
      line += 1;
      const text = raw.trim();
      if (text === '') return undefined;
      try {
        return { line, value: JSON.parse(text) };
      } catch (error) {
        if (torn && options.tolerateTornTail) {
          options.onTornTail?.(line);
          return undefined;
        }
        throw new InputError(`${path}:${line}: not valid JSON (${(error as Error).message})`, {
          code: 'bad-jsonl',
          cause: error,
        });
      }
    };
    for (;;) {
      let read: number;
      try {
        ({ bytesRead: read } = await handle.read(buffer, 0, buffer.length, null));
      } catch (error) {
        throw unreadable(error);
      }
      if (read === 0) break;
      const chunk = decoder.write(buffer.subarray(0, read));
      const cut = chunk.lastIndexOf('\n');
      if (cut < 0) {
        rest += chunk; // a long line goes on
        continue;
      }
      const lines = (rest + chunk.slice(0, cut)).split('\n');
      rest = chunk.slice(cut + 1);
      for (const raw of lines) {
        const value = take(raw, false);
        if (value) yield value;
      }
    }
    const value = take(rest + decoder.end(), true);
    if (value) yield value;
  } finally {
    await handle.close();
  }
}

/** Reads a whole JSONL file (see `streamJsonl`). */
export async function readJsonl(path: string, options: JsonlReadOptions = {}): Promise<JsonlLine[]> {
  const values: JsonlLine[] = [];
  for await (const value of streamJsonl(path, options)) values.push(value);
  return values;
}

/** Parses a value with a schema, or throws an InputError naming where it came from and the field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new InputError(`${where}: ${formatZodError(result.error)}`, { code: 'schema', cause: result.error });
  }
  return result.data;
}
