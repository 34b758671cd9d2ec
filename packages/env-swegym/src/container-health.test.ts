import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { containerUnusableReason } from './container-health.js';

/** A container as the daemon describes it, reading after reading (the last one repeats). */
function container(readings: Array<{ running: boolean; memory?: object; fail?: boolean }>): Docker.Container {
  let inspected = 0;
  let read = 0;
  const at = (index: number) => readings[Math.min(index, readings.length - 1)] ?? { running: true };
  return {
    inspect: async () => {
      const reading = at(inspected++);
      read = inspected - 1;
      if (reading.fail) throw new Error('connect ECONNREFUSED /var/run/docker.sock');
      return { State: { Running: reading.running, Status: reading.running ? 'running' : 'exited', ExitCode: 137 } };
    },
    stats: async () => ({ pids_stats: { current: 3, limit: 128 }, memory_stats: at(read).memory ?? {} }),
  } as unknown as Docker.Container;
}

const mebibytes = (count: number) => count * 1024 ** 2;

describe('containerUnusableReason', () => {
  it('reads the memory as docker stats counts it, without the file pages the kernel could drop', async () => {
    const full = { usage: mebibytes(127), limit: mebibytes(128), stats: { inactive_file: 0 } };
    expect(await containerUnusableReason(container([{ running: true, memory: full }]))).toMatch(
      /^its memory is full \(127 MiB of 128 MiB/,
    );
    const droppable = { usage: mebibytes(127), limit: mebibytes(128), stats: { total_inactive_file: mebibytes(40) } };
    expect(await containerUnusableReason(container([{ running: true, memory: droppable }]))).toBeNull();
  });

  it('reads again when the daemon gave no memory reading, as while a killed container stops', async () => {
    const stopping = container([{ running: true, memory: {} }, { running: false }]);
    expect(await containerUnusableReason(stopping)).toBe(
      'its container is not running any more (exited, exit code 137)',
    );
    const failedOnce = container([
      { running: true, fail: true },
      { running: true, memory: { usage: 2, limit: 2 } },
    ]);
    expect(await containerUnusableReason(failedOnce)).toMatch(/^its memory is full/);
  });

  it('cannot tell when the daemon does not answer: the next exec reports that', async () => {
    expect(await containerUnusableReason(container([{ running: true, fail: true }]))).toBeNull();
    expect(await containerUnusableReason(container([{ running: true, memory: {} }]))).toBeNull();
  });
});
