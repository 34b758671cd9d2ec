import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProgress } from './progress.js';

describe('progress in a log (stderr not a terminal)', () => {
  const tty = process.stderr.isTTY;
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
    Object.defineProperty(process.stderr, 'isTTY', { value: tty, configurable: true });
  });

  it('writes a line every 10%, and one after each 15 s without a line, until the work ends', () => {
    vi.useFakeTimers();
    Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk).replace(/ \| [\d.]+ s\n$/, ''));
      return true;
    });
    const progress = createProgress('eval', 20);
    // Containers starting: nothing ends for 31 s.
    vi.advanceTimersByTime(31_000);
    expect(lines).toEqual(['eval: 0/20 | under way', 'eval: 0/20 | under way']);
    progress.update(1, '1 solved attempt');
    expect(lines).toHaveLength(2);
    progress.update(2, '1 solved attempt');
    vi.advanceTimersByTime(10_000);
    // The 10% line put the next heartbeat off by 15 s.
    expect(lines.slice(2)).toEqual(['eval: 2/20 | 1 solved attempt']);
    vi.advanceTimersByTime(5_000);
    expect(lines.slice(3)).toEqual(['eval: 2/20 | 1 solved attempt']);
    // A heartbeat says how far the work is, not only as far as the last 10% line.
    progress.update(3, '2 solved attempts');
    vi.advanceTimersByTime(15_000);
    expect(lines.slice(4)).toEqual(['eval: 3/20 | 2 solved attempts']);
    progress.stop();
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(5);
  });

  it('counts its times from when the work began, when that was before the first line', () => {
    vi.useFakeTimers();
    Object.defineProperty(process.stderr, 'isTTY', { value: false, configurable: true });
    const lines: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    createProgress('step 1 base', 2, Date.now() - 5_000).update(2, '2 of 2 attempts');
    expect(lines).toEqual(['step 1 base: 2/2 | 2 of 2 attempts | 5.0 s\n']);
  });
});
