/**
 * Watches the disk of episodes whose statement runs long, from outside the episode. A server checks an
 * episode's disk after each statement (postgres-session.ts, mysql-session.ts), but one statement can
 * write for the whole time limit; this bounds what it writes while it runs. Each statement registers
 * when it starts; once it has run `delayMs`, the backend measures its episode every `intervalMs`, in one
 * query for all the statements running that long, and the statement is stopped as soon as its episode
 * is over the limit. Most statements end before the first measurement and cost nothing.
 */

/** One running statement's episode. */
export interface DiskWatchTarget {
  /** What `measure` is asked about: the episode's database (PostgreSQL) or store (MySQL). */
  key: string;
  /** Bytes of the measurement that are not the episode's (the empty database). */
  baseBytes: number;
  limitBytes: number;
  /** Called once, with the episode's bytes, when they are over the limit; the target is then unwatched. */
  onOver(bytes: number): void;
}

export interface DiskWatchOptions {
  /**
   * The bytes each key takes now; a key missing from the answer is not judged this time. A failing
   * measurement is skipped (the check after the statement still runs).
   */
  measure(keys: string[]): Promise<Map<string, number>>;
  /** A statement is first measured once it has run this long (default 100 ms). */
  delayMs?: number;
  /** Between measurements (default 100 ms). */
  intervalMs?: number;
}

interface Entry {
  target: DiskWatchTarget;
  /** When the statement is first due for measurement. */
  due: number;
}

export class DiskWatch {
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | null = null;
  private measuring = false;
  private readonly delayMs: number;
  private readonly intervalMs: number;

  constructor(private readonly options: DiskWatchOptions) {
    this.delayMs = options.delayMs ?? 100;
    this.intervalMs = options.intervalMs ?? 100;
  }

  /** Watches one statement's episode until the returned function is called (when the statement ends). */
  watch(target: DiskWatchTarget): () => void {
    const entry: Entry = { target, due: performance.now() + this.delayMs };
    this.entries.add(entry);
    this.schedule();
    return () => {
      this.entries.delete(entry);
    };
  }

  /** Statements watched right now. */
  get size(): number {
    return this.entries.size;
  }

  /** Stops watching every statement registered (the backend is closing). */
  close(): void {
    this.entries.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.timer || this.measuring || this.entries.size === 0) return;
    const next = Math.min(...[...this.entries].map((entry) => entry.due));
    this.timer = setTimeout(() => void this.tick(), Math.max(0, next - performance.now()));
    // A statement that is being watched keeps the process alive anyway.
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    const now = performance.now();
    const due = [...this.entries].filter((entry) => entry.due <= now);
    if (due.length > 0) {
      this.measuring = true;
      try {
        const sizes = await this.options.measure([...new Set(due.map((entry) => entry.target.key))]);
        for (const entry of due) {
          const size = sizes.get(entry.target.key);
          if (!this.entries.has(entry) || size === undefined) continue;
          const used = size - entry.target.baseBytes;
          if (used > entry.target.limitBytes) {
            this.entries.delete(entry);
            entry.target.onOver(used);
          }
        }
      } catch {
        // The server could not say; the next measurement or the check after the statement will.
      } finally {
        this.measuring = false;
      }
      const later = performance.now() + this.intervalMs;
      for (const entry of due) entry.due = later;
    }
    this.schedule();
  }
}
