import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const jsonLines = async (path: string): Promise<Record<string, unknown>[]> =>
  (await readFile(path, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/**
 * What must be identical between two training runs of the same configuration and seed however
 * they were executed (uninterrupted, killed and resumed, on queue workers): the summary and the
 * per-step metrics without durations, and every attempt's id, outcome and training record.
 */
export async function runOutcome(dir: string) {
  const { durationMs: _, ...summary } = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'));
  const metrics = (await jsonLines(join(dir, 'metrics.jsonl'))).map(({ durationMs: _, ...rest }) => rest);
  const trajectories = (await jsonLines(join(dir, 'trajectories.jsonl'))).map((trajectory) => [
    trajectory['id'],
    (trajectory['evaluation'] as { success?: boolean } | undefined)?.success,
    trajectory['training'],
  ]);
  return { summary, metrics, trajectories };
}
