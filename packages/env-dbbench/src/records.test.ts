import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { loadDbbenchFile } from './records.js';

const devPath = fileURLToPath(new URL('../data/dev.jsonl', import.meta.url));

describe('loadDbbenchFile', () => {
  it('loads the real dev split: 59 tasks, and reports record 5 with its reason', async () => {
    const { tasks, unloadable } = await loadDbbenchFile(devPath, 'dev');
    expect(tasks).toHaveLength(59);
    expect(unloadable).toEqual([{ id: 'dev-5', reason: "column 1 of table 'historic_sites' has an empty name" }]);
    expect(tasks.filter((task) => task.kind === 'write')).toHaveLength(40);
    const first = tasks[0];
    expect(first).toMatchObject({ id: 'dev-0', kind: 'question', type: 'other', label: ['March 19, 1998'] });
    expect(first?.instruction).toContain('Termination of Mission listed as August 15, 2000');
    const insert = tasks.find((task) => task.id === 'dev-20');
    expect(insert).toMatchObject({ kind: 'write', type: 'INSERT', tableName: 'School Location Table' });
    expect(insert?.answerMd5).toBe("[('09aa8fbf72f39362970f95a1276b957c',)]");
    for (const task of tasks) for (const row of task.rows) expect(row).toHaveLength(task.columns.length);
  });

  it('keeps going past bad lines, naming each with its line and reason', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dbbench-'));
    const path = join(dir, 'mixed.jsonl');
    const good = (await import('node:fs/promises')).readFile(devPath, 'utf8').then((text) => text.split('\n')[0] ?? '');
    const record = JSON.parse(await good);
    const lines = [
      JSON.stringify(record),
      '{not json',
      JSON.stringify({ ...record, table: { table_name: 't' } }),
      JSON.stringify({
        ...record,
        table: { ...record.table, table_info: { columns: [{ name: 'a' }, { name: 'A' }], rows: [] } },
      }),
      JSON.stringify({
        ...record,
        table: { ...record.table, table_info: { columns: [{ name: 'a' }], rows: [['1', '2']] } },
      }),
      JSON.stringify({ ...record, type: ['UPDATE'], answer_md5: null }),
    ];
    await writeFile(path, `${lines.join('\n')}\n`);
    const { tasks, unloadable } = await loadDbbenchFile(path);
    expect(tasks.map((task) => task.id)).toEqual(['mixed-0']);
    expect(unloadable).toEqual([
      { id: 'mixed-1', reason: expect.stringMatching(/^line 2: not valid JSON/) },
      { id: 'mixed-2', reason: expect.stringMatching(/^line 3: table\.table_info/) },
      { id: 'mixed-3', reason: "column name 'A' appears twice (names are case-insensitive in MySQL)" },
      { id: 'mixed-4', reason: 'row 1 has 2 cells but the table has 1 columns' },
      { id: 'mixed-5', reason: 'a UPDATE task needs answer_md5' },
    ]);
  });

  it('refuses a file that is missing or not JSONL at all', async () => {
    await expect(loadDbbenchFile('/nonexistent/tasks.jsonl')).rejects.toThrow(
      /cannot read task file \/nonexistent\/tasks\.jsonl/,
    );
    const dir = await mkdtemp(join(tmpdir(), 'dbbench-'));
    const path = join(dir, 'tasks.csv');
    await writeFile(path, 'a,b\n1,2\n');
    await expect(loadDbbenchFile(path)).rejects.toThrow(InputError);
  });
});
