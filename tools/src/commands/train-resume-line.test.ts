import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resumeLine } from './train.js';

describe('a continued training run', () => {
  it('says where it picks up and what it does again', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'resume-line-'));
    expect(await resumeLine(dir, 6)).toBe(
      `Continuing ${dir}: no checkpoint yet, so it starts again from the beginning`,
    );
    await mkdir(join(dir, 'checkpoints'));
    await writeFile(join(dir, 'checkpoints', 'latest.json'), JSON.stringify({ step: 2 }));
    expect(await resumeLine(dir, 6)).toBe(
      `Continuing ${dir} from its checkpoint after step 2: steps 3-6 to go (what step 3 recorded before the stop is sampled again and replaced)`,
    );
    expect(await resumeLine(dir, 2)).toBe(`Continuing ${dir}: all 2 steps are done`);
  });
});
