import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DbbenchBackend, DbbenchSession } from './backend.js';
import { createDbbenchEnvironment } from './environment.js';
import { observationText } from './episode.js';
import { createPgliteBackend } from './pglite-backend.js';
import type { DbbenchTask } from './records.js';

const limitMs = 2000;

describe('DBBench episodes on PGlite: statements that would not end', () => {
  let backend: DbbenchBackend;
  let tasks: DbbenchTask[] = [];
  const task = (id: string) => tasks.find((item) => item.id === id) as DbbenchTask;
  const table = '"Music Chart History"';

  beforeAll(async () => {
    backend = createPgliteBackend({ statementTimeoutMs: limitMs });
    ({ tasks } = await createDbbenchEnvironment({ backend }).loadTasks({ split: 'dev' }));
  });
  afterAll(() => backend?.close());

  const count = async (session: DbbenchSession): Promise<string> =>
    observationText(await session.execute(`SELECT COUNT(*) FROM ${table}`));

  /** Runs `sql`, counting the ticks of a 50 ms timer meanwhile: this process must not be blocked. */
  async function timed(session: DbbenchSession, sql: string) {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 50);
    const started = performance.now();
    try {
      const observation = observationText(await session.execute(sql));
      return { observation, ms: performance.now() - started, ticks };
    } finally {
      clearInterval(timer);
    }
  }

  it('stops a statement at the time limit without blocking this process, and starts the episode over', {
    timeout: 180_000,
  }, async () => {
    const session = await backend.openSession(task('dev-2'));
    try {
      expect(observationText(await session.execute(`DELETE FROM ${table}`))).toBe('[]');
      // Tens of seconds on the embedded engine: it must be stopped at the limit.
      const long = await timed(session, 'SELECT count(*) FROM generate_series(1, 30000000)');
      expect(long.observation).toMatch(
        /^the statement was stopped: it ran longer than the 2 s time limit; .*everything the episode did is undone/,
      );
      expect(long.ms).toBeLessThan(limitMs + 4000);
      expect(long.ticks).toBeGreaterThan(long.ms / 50 / 4);
      expect(await count(session)).toBe('[(35,)]');
      for (const endless of [
        'SELECT count(*) FROM generate_series(1, 1e13)',
        'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
      ]) {
        const stopped = await timed(session, endless);
        expect(stopped.observation).toMatch(/time limit/);
        expect(stopped.ms).toBeLessThan(limitMs + 4000);
        expect(await count(session)).toBe('[(35,)]');
      }
    } finally {
      await session.close();
    }
    expect(backend.sessionsInUse()).toBe(0);
  });

  it('stops reading a task table made endless for scoring, and the next episode starts clean', {
    timeout: 180_000,
  }, async () => {
    const session = await backend.openSession(task('dev-2'));
    try {
      const columns = task('dev-2')
        .columns.map((column) => `g::text AS "${column}"`)
        .join(', ');
      expect((await session.execute(`DROP TABLE ${table}`)).ok).toBe(true);
      const view = `CREATE VIEW ${table} AS SELECT ${columns} FROM generate_series(1, 1e13) g`;
      expect(observationText(await session.execute(view))).toBe('[]');
      const started = performance.now();
      expect(await session.readTable()).toEqual({ error: expect.stringMatching(/time limit/) });
      expect(performance.now() - started).toBeLessThan(limitMs + 4000);
    } finally {
      await session.close();
    }
    const next = await backend.openSession(task('dev-2'));
    try {
      expect(await count(next)).toBe('[(35,)]');
    } finally {
      await next.close();
    }
  });
});
