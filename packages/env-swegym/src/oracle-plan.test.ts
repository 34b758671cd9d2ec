import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { editCommand, reverseEdit } from './oracle-plan.js';

const run = promisify(execFile);

describe('editCommand', () => {
  it('replaces text with quotes, backslashes, here-document markers and non-ASCII verbatim, and undoes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edit-command-'));
    try {
      const original = "const a = 'x';\nconst re = /\\d+\\n/;\nPYEDIT\n$HOME `date` é\n";
      await writeFile(join(dir, 'file.js'), original);
      const edit = {
        file: 'file.js',
        find: 'const re = /\\d+\\n/;\nPYEDIT\n$HOME',
        replace: 'const re = "\\"é\\"";\n$PATH',
      };
      const result = await run('bash', ['-c', editCommand(edit)], { cwd: dir });
      expect(result.stdout).toBe('edited file.js\n');
      expect(await readFile(join(dir, 'file.js'), 'utf8')).toBe(
        'const a = \'x\';\nconst re = "\\"é\\"";\n$PATH `date` é\n',
      );
      await run('bash', ['-c', editCommand(reverseEdit(edit))], { cwd: dir });
      expect(await readFile(join(dir, 'file.js'), 'utf8')).toBe(original);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails loudly when the text is not there exactly once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edit-command-'));
    try {
      await writeFile(join(dir, 'file.py'), 'x = 1\nx = 1\n');
      await expect(
        run('bash', ['-c', editCommand({ file: 'file.py', find: 'x = 1', replace: 'x = 2' })], { cwd: dir }),
      ).rejects.toThrow(/found it 2 times/);
      expect(await readFile(join(dir, 'file.py'), 'utf8')).toBe('x = 1\nx = 1\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
