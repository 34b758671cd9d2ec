import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { InputError } from './errors.js';

/** Formats the first zod issue as `field.path: message`. */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  value: unknown;
}

/**
 * Reads a JSONL file. Blank lines are skipped. A line that is not JSON throws an InputError naming
 * the file and line, except a torn last line (a run killed while writing), which `tolerateTornTail`
 * drops.
 */
export async function readJsonl(path: string, options: { tolerateTornTail?: boolean } = {}): Promise<JsonlLine[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read ${path}: ${(error as Error).message}`, { code: 'file-unreadable', cause: error });
  }
  const lines = text.split('\n');
  const values: JsonlLine[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const raw = lines[index]?.trim() ?? '';
    if (raw === '') continue;
    try {
      values.push({ line: index + 1, value: JSON.parse(raw) });
    } catch (error) {
      const isLast = lines.slice(index + 1).every((rest) => rest.trim() === '');
      if (isLast && options.tolerateTornTail && !text.endsWith('\n')) break;
      throw new InputError(`${path}:${index + 1}: not valid JSON (${(error as Error).message})`, {
        code: 'bad-jsonl',
        cause: error,
      });
    }
  }
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
