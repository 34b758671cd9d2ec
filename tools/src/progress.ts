import { SingleBar } from 'cli-progress';

/** How long a log (not a terminal) goes without a progress line before one says the work goes on. */
const heartbeatMs = 15_000;

/**
 * Progress of long work on stderr: a live bar on a terminal; otherwise a line every 10%, and one
 * after each 15 s without a line (the first units may take long: containers starting, a model loading).
 */
export interface Progress {
  update(completed: number, detail: string): void;
  stop(): void;
}

export function createProgress(
  label: string,
  total: number,
  /** When the work began (`Date.now()`), if before this call: a log's times count from it. */
  startedAt = Date.now(),
): Progress {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({
      format: `${label} [{bar}] {value}/{total} | {detail} | {duration_formatted} (eta {eta_formatted})`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
    });
    bar.start(total, 0, { detail: '' });
    return { update: (completed, detail) => bar.update(completed, { detail }), stop: () => bar.stop() };
  }
  let reported = 0;
  let latest = { completed: 0, detail: 'under way' };
  let updated = false;
  const line = (completed: number, detail: string) => {
    process.stderr.write(
      `${label}: ${completed}/${total} | ${detail} | ${((Date.now() - startedAt) / 1000).toFixed(1)} s\n`,
    );
    heartbeat.refresh();
  };
  const heartbeat = setInterval(() => line(latest.completed, latest.detail), heartbeatMs);
  heartbeat.unref();
  return {
    update(completed, detail) {
      // The first update is said at once: work shown late (a slow phase) shows where it stands.
      const first = !updated;
      updated = true;
      latest = { completed, detail };
      const step = Math.max(1, Math.ceil(total / 10));
      if (first || completed === total || completed - reported >= step) {
        reported = completed;
        line(completed, detail);
      }
      if (completed === total) clearInterval(heartbeat);
    },
    stop: () => clearInterval(heartbeat),
  };
}

/**
 * One bar at a time for work that comes in parts (a step's phases, an anchoring): a new part
 * replaces the bar, and a part's last unit stops it.
 */
export function partsProgress() {
  let bar: Progress | undefined;
  let current: string | undefined;
  const stop = () => {
    bar?.stop();
    bar = undefined;
  };
  return {
    update(part: string, label: string, done: number, total: number, detail: string, startedAt?: number) {
      if (!bar || part !== current) {
        bar?.stop();
        current = part;
        bar = createProgress(label, total, startedAt);
      }
      bar.update(done, detail);
      if (done === total) stop();
    },
    stop,
  };
}
