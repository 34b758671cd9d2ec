import { spawnSync } from 'node:child_process';
import { appendFile, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from './errors.js';
import { readJsonl, streamJsonl } from './jsonl.js';
import { writeLinesAtomic } from './run-store.js';

const folder = () => mkdtemp(join(tmpdir(), 'jsonl-'));

describe('streamJsonl', () => {
  it('reads lines longer than its buffer, and characters cut between two reads, as written', async () => {
    const path = join(await folder(), 'long.jsonl');
    // Lines of 3 MB of 2- and 3-byte characters: 1 MB reads end inside characters.
    const long = 'é€'.repeat(600_000);
    const values = [{ a: 1 }, { text: long }, { b: 'ünï' }, { text: `x${long}` }];
    await writeFile(path, `${values.map((value) => JSON.stringify(value)).join('\n')}\n\n`);
    const read = [];
    for await (const line of streamJsonl(path)) read.push(line);
    expect(read.map((line) => line.line)).toEqual([1, 2, 3, 4]);
    expect(read.map((line) => line.value)).toEqual(values);
  });

  it('drops a torn last line only when asked, and names the line of any other that is not JSON', async () => {
    const path = join(await folder(), 'torn.jsonl');
    await writeFile(path, '{"a":1}\n\n{"b":2}\n{"c":');
    expect((await readJsonl(path, { tolerateTornTail: true })).map((line) => line.value)).toEqual([{ a: 1 }, { b: 2 }]);
    await expect(readJsonl(path)).rejects.toThrow(/torn\.jsonl:4: not valid JSON/);
    // With a newline after it, the line was written whole: corrupt, not torn.
    await appendFile(path, '\n');
    await expect(readJsonl(path, { tolerateTornTail: true })).rejects.toThrow(/torn\.jsonl:4: not valid JSON/);
    await writeFile(path, '{"a":1}\nnot json\n{"b":2}');
    const error = await readJsonl(path, { tolerateTornTail: true }).catch((caught: unknown) => caught);
    expect(InputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/torn\.jsonl:2: not valid JSON/);
  });

  it('names a file it cannot read', async () => {
    const path = join(await folder(), 'missing.jsonl');
    await expect(readJsonl(path)).rejects.toThrow(`cannot read ${path}`);
  });
});

describe('writeLinesAtomic', () => {
  it('writes lines as they come, ending each with one newline, and leaves no file when the source fails', async () => {
    const dir = await folder();
    const path = join(dir, 'out.jsonl');
    async function* lines() {
      for (let index = 0; index < 3000; index += 1) yield JSON.stringify({ index, pad: 'p'.repeat(500) });
      yield 'last\n';
    }
    expect(await writeLinesAtomic(path, lines())).toBe(3001);
    const text = await readFile(path, 'utf8');
    expect(text.split('\n')).toHaveLength(3002);
    expect(text.endsWith('last\n')).toBe(true);
    expect(JSON.parse(text.split('\n')[2999] ?? '')).toMatchObject({ index: 2999 });

    async function* failing() {
      yield '{"a":1}';
      throw new Error('source broke');
    }
    await expect(writeLinesAtomic(path, failing())).rejects.toThrow('source broke');
    // The earlier file stands, whole, and no temporary file is left beside it.
    expect(await readFile(path, 'utf8')).toBe(text);
    expect(await readdir(dir)).toEqual(['out.jsonl']);
  });

  it("removes what a killed writer of the file left, and keeps a live writer's temporary file", async () => {
    const dir = await folder();
    const path = join(dir, 'out.jsonl');
    // A process that has ended: its pid is free (and not reused within this test).
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const stale = `out.jsonl.${hostname()}.${gone}.0.1.tmp`;
    const live = `out.jsonl.${hostname()}.${process.pid}.0.99.tmp`;
    const otherHost = `out.jsonl.elsewhere.${gone}.0.1.tmp`;
    for (const name of [stale, live, otherHost]) await writeFile(join(dir, name), 'partial');
    await writeLinesAtomic(path, ['{"a":1}']);
    expect((await readdir(dir)).sort()).toEqual([otherHost, 'out.jsonl', live].sort());
  });
});
