import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { formatZodError, InputError, type Task, type TaskSet, type UnloadableTask } from '@harness-s/core';
import { z } from 'zod';

/** An AgentBench DBBench record, read leniently: only the fields we use, extra ones ignored. */
export const DbbenchRecord = z.object({
  description: z.string(),
  add_description: z.string().nullish(),
  type: z.union([z.string(), z.array(z.string()).min(1)]),
  label: z.array(z.unknown()).nullish(),
  table: z.object({
    table_name: z.string(),
    table_info: z.object({
      columns: z.array(z.object({ name: z.string(), type: z.string().nullish() })).min(1),
      rows: z.array(z.array(z.unknown())),
    }),
  }),
  answer_md5: z.string().nullish(),
  source: z.string().nullish(),
});
export type DbbenchRecord = z.infer<typeof DbbenchRecord>;

/** The write types, scored by the modified-table hash; every other type is a question. */
export const writeTypes = ['INSERT', 'UPDATE', 'DELETE'] as const;

/** A loaded DBBench task. */
export interface DbbenchTask extends Task {
  env: 'dbbench';
  /** AgentBench's type (`counting`, `INSERT`...). */
  type: string;
  /** `write` tasks are scored by the table hash, `question` tasks against the label. */
  kind: 'question' | 'write';
  tableName: string;
  columns: string[];
  /** Initial rows, every cell as MySQL would store it in a TEXT column (or null). */
  rows: Array<Array<string | null>>;
  /** Questions: the expected answers. Writes: the gold SQL (MySQL dialect) in `label[0]`. */
  label: string[];
  /** Writes: AgentBench's expected hash result text, e.g. "[('03b2...',)]". */
  answerMd5: string | null;
  /** 0-based line index in its file. */
  index: number;
}

/**
 * A cell as MySQL stores it in a TEXT column when the value is bound by a driver: strings as they
 * are, numbers by their Python text (AgentBench's rows come from JSON through Python), booleans as
 * 1/0.
 */
function cellText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number')
    return Number.isInteger(value) && !Object.is(value, -0) ? String(value) : pythonFloatText(value);
  return JSON.stringify(value);
}

function pythonFloatText(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  return String(value);
}

/** Why a record cannot be loaded on any SQL engine, or null when it can. */
function unloadableReason(record: DbbenchRecord): string | null {
  const columns = record.table.table_info.columns.map((column) => column.name);
  const empty = columns.findIndex((name) => name.trim() === '');
  if (empty >= 0) return `column ${empty + 1} of table '${record.table.table_name}' has an empty name`;
  if (record.table.table_name.trim() === '') return 'the table name is empty';
  const seen = new Set<string>();
  for (const name of columns) {
    // MySQL column names are case-insensitive, so `Year` and `year` collide.
    const key = name.toLowerCase();
    if (seen.has(key)) return `column name '${name}' appears twice (names are case-insensitive in MySQL)`;
    seen.add(key);
  }
  const width = columns.length;
  const badRow = record.table.table_info.rows.findIndex((row) => row.length !== width);
  if (badRow >= 0) {
    const length = record.table.table_info.rows[badRow]?.length ?? 0;
    return `row ${badRow + 1} has ${length} cells but the table has ${width} columns`;
  }
  const type = Array.isArray(record.type) ? record.type[0] : record.type;
  if ((writeTypes as readonly string[]).includes(type ?? '')) {
    if (!record.answer_md5) return `a ${type} task needs answer_md5`;
    if (typeof record.label?.[0] !== 'string') return `a ${type} task needs its gold SQL in label[0]`;
  } else if (!record.label || record.label.length === 0) {
    return 'a question task needs a non-empty label';
  }
  return null;
}

/** Turns one validated record into a task. */
export function toTask(record: DbbenchRecord, split: string, index: number, engineNote = ''): DbbenchTask {
  const type = (Array.isArray(record.type) ? record.type[0] : record.type) ?? 'other';
  const kind = (writeTypes as readonly string[]).includes(type) ? 'write' : 'question';
  const instruction = [record.description, record.add_description ?? '', engineNote].filter(Boolean).join('\n');
  return {
    id: `${split}-${index}`,
    env: 'dbbench',
    split,
    instruction,
    category: type,
    tags: [kind, ...(record.source ? [record.source] : [])],
    type,
    kind,
    tableName: record.table.table_name,
    columns: record.table.table_info.columns.map((column) => column.name),
    rows: record.table.table_info.rows.map((row) => row.map(cellText)),
    label: (record.label ?? []).map((value) => (typeof value === 'string' ? value : String(cellText(value)))),
    answerMd5: record.answer_md5 ?? null,
    index,
  };
}

/** A line of the file: its value, or why it is not JSON. */
interface FileEntry {
  line: number;
  value: unknown;
  parseError: string | null;
}

/**
 * Loads an AgentBench-format JSONL file. A line that is not JSON, does not fit the record shape, or
 * describes a table no engine can create is reported in `unloadable` with the reason; the rest load.
 * Task ids are `<split>-<index>`, the index counting non-blank lines from 0 as AgentBench does.
 */
export async function loadDbbenchFile(path: string, split?: string, engineNote = ''): Promise<TaskSet<DbbenchTask>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(`cannot read task file ${path}: ${(error as Error).message}`, {
      code: 'file-unreadable',
      cause: error,
    });
  }
  const entries = text.split('\n').flatMap((raw, index): FileEntry[] => {
    if (raw.trim() === '') return [];
    try {
      return [{ line: index + 1, value: JSON.parse(raw) as unknown, parseError: null }];
    } catch (error) {
      return [{ line: index + 1, value: null, parseError: (error as Error).message }];
    }
  });
  if (entries.length > 0 && entries.every((entry) => entry.parseError !== null)) {
    throw new InputError(`${path}: no line is JSON; is this an AgentBench JSONL file?`, { code: 'bad-task-file' });
  }
  return fromLines(entries, split ?? basename(path, extname(path)), engineNote);
}

function fromLines(entries: FileEntry[], split: string, engineNote: string): TaskSet<DbbenchTask> {
  const tasks: DbbenchTask[] = [];
  const unloadable: UnloadableTask[] = [];
  entries.forEach((entry, index) => {
    const id = `${split}-${index}`;
    if (entry.parseError !== null) {
      unloadable.push({ id, reason: `line ${entry.line}: not valid JSON (${entry.parseError})` });
      return;
    }
    const parsed = DbbenchRecord.safeParse(entry.value);
    if (!parsed.success) {
      unloadable.push({ id, reason: `line ${entry.line}: ${formatZodError(parsed.error)}` });
      return;
    }
    const reason = unloadableReason(parsed.data);
    if (reason) {
      unloadable.push({ id, reason });
      return;
    }
    tasks.push(toTask(parsed.data, split, index, engineNote));
  });
  return { tasks, unloadable };
}
