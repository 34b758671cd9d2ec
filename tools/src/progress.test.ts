import { afterEach, describe, expect, it, vi } from 'vitest';
import { phaseProgress } from './commands/train-progress.js';
import { createProgress } from './progress.js';

/** What is written to stderr, as a log (not a terminal) on fake timers; lines without their times unless asked. */
function logLines(options: { times?: boolean } = {}): string[] {
  vi.useFakeTimers();
  Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(options.times ? String(chunk) : String(chunk).replace(/ \| [\d.]+ s\n$/, ''));
    return true;
  });
  return lines;
}

describe('progress in a log (stderr not a terminal)', () => {
  const tty = process.stderr.isTTY;
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    Object.defineProperty(process.stderr, 'isTTY', { value: tty, configurable: true });
  });

  it('writes a line every 10%, and one after each 15 s without a line, until the work ends', () => {
    const lines = logLines();
    const progress = createProgress('eval', 20);
    // Containers starting: nothing ends for 31 s.
    vi.advanceTimersByTime(31_000);
    expect(lines).toEqual(['eval: 0/20 | under way', 'eval: 0/20 | under way']);
    // The first update is said at once, then every 10% (2 of 20).
    progress.update(1, '1 solved attempt');
    expect(lines.slice(2)).toEqual(['eval: 1/20 | 1 solved attempt']);
    progress.update(2, '1 solved attempt');
    progress.update(3, '1 solved attempt');
    expect(lines.slice(3)).toEqual(['eval: 3/20 | 1 solved attempt']);
    // A heartbeat says how far the work is, not only as far as the last line; the 10% line put it off.
    progress.update(4, '2 solved attempts');
    vi.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(4);
    vi.advanceTimersByTime(5_000);
    expect(lines.slice(4)).toEqual(['eval: 4/20 | 2 solved attempts']);
    progress.stop();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(5);
  });

  it('counts its times from when the work began, when that was before the first line', () => {
    const lines = logLines({ times: true });
    createProgress('step 1 base', 2, Date.now() - 5_000).update(2, '2 of 2 attempts');
    expect(lines).toEqual(['step 1 base: 2/2 | 2 of 2 attempts | 5.0 s\n']);
  });

  it("shows a simulated policy's phase once it has run 10 s, even before its first attempt ends; a model's from the start", () => {
    const lines = logLines();
    const sim = phaseProgress({ always: false });
    // A quick phase: no bar.
    sim.attempts(1, 'base', { done: 0, total: 2 });
    sim.attempts(1, 'base', { done: 2, total: 2 });
    vi.advanceTimersByTime(20_000);
    expect(lines).toEqual([]);
    // Containers starting: nothing ends for 12 s; the bar comes at 10 s.
    sim.attempts(1, 'eval', { done: 0, total: 4 });
    vi.advanceTimersByTime(12_000);
    expect(lines).toEqual(['step 1 eval: 0/4 | 0 of 4 attempts']);
    sim.attempts(1, 'eval', { done: 4, total: 4 });
    expect(lines.at(-1)).toBe('step 1 eval: 4/4 | 4 of 4 attempts');
    sim.stop();

    lines.length = 0;
    const model = phaseProgress({ always: true });
    model.attempts(0, 'eval', { done: 1, total: 10 });
    expect(lines).toEqual(['before training eval: 1/10 | 1 of 10 attempts']);
    model.stop();
  });
});
