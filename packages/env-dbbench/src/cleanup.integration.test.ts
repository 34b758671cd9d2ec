import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type TestServer, testServers } from './__fixtures__/servers.js';
import { closeMysql, connectMysql, runMysql } from './mysql-client.js';
import { runIdOf, runObjectName } from './naming.js';
import { connectPostgres } from './postgres-client.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const tsx = join(root, 'node_modules/.bin/tsx');
const cli = ['--conditions=source', join(root, 'tools/src/cli.ts')];
const servers = await testServers();

/** The server's databases, roles or users, and (PostgreSQL) the schemas of the URL's database. */
async function serverObjects(server: TestServer): Promise<string[]> {
  if (server.name === 'MariaDB') {
    const admin = await connectMysql({ url: server.url, connectTimeoutMs: 5000 });
    try {
      const rows = await runMysql<Array<{ name: string }>>(
        admin,
        `SELECT CONCAT('database ', SCHEMA_NAME) AS name FROM information_schema.SCHEMATA
         UNION ALL SELECT CONCAT('user ', User, '@', Host) FROM mysql.user`,
      );
      return rows.map((row) => String(row.name)).sort();
    } finally {
      await closeMysql(admin);
    }
  }
  const admin = await connectPostgres({ url: server.url, applicationName: 'test', connectTimeoutMs: 5000 });
  try {
    const rows = await admin.query<{ name: string }>(
      `SELECT 'database ' || datname AS name FROM pg_database UNION ALL SELECT 'role ' || rolname FROM pg_roles
       UNION ALL SELECT 'schema ' || nspname FROM pg_namespace`,
    );
    return rows.rows.map((row) => row.name).sort();
  } finally {
    await admin.end();
  }
}

/** Whether any connection of the run is still open on the server. */
async function runConnected(server: TestServer, runId: string): Promise<boolean> {
  if (server.name === 'MariaDB') {
    const admin = await connectMysql({ url: server.url, connectTimeoutMs: 5000 });
    try {
      const [lock] = await runMysql<Array<{ holder: unknown }>>(admin, 'SELECT IS_USED_LOCK(?) AS holder', [
        runObjectName(runId),
      ]);
      return lock?.holder !== null && lock?.holder !== undefined;
    } finally {
      await closeMysql(admin);
    }
  }
  const admin = await connectPostgres({ url: server.url, applicationName: 'test', connectTimeoutMs: 5000 });
  try {
    const found = await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [
      runObjectName(runId),
    ]);
    return (found.rowCount ?? 0) > 0;
  } finally {
    await admin.end();
  }
}

const nameOf = (entry: string) => entry.split(' ')[1]?.split('@')[0] ?? '';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [...cli, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, output }));
  });
}

for (const server of servers) {
  describe.skipIf(!server.available)(`harness-s cleanup on ${server.name}`, () => {
    it('leaves the server as it was after a run killed with SIGKILL', async () => {
      const before = await serverObjects(server);
      const out = join(await mkdtemp(join(tmpdir(), 'killed-')), 'run');
      const args = [
        'eval',
        '--env',
        'dbbench',
        '--db',
        server.url,
        '--policy',
        'oracle',
        '--k',
        '50',
        '--quiet',
        '--out',
        out,
      ];
      const child = spawn(tsx, [...cli, ...args], { cwd: root, stdio: 'ignore', detached: true });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)));

      // Wait until the run has made its objects and is running episodes, then kill it outright.
      let runId: string | null = null;
      for (const deadline = Date.now() + 90_000; Date.now() < deadline && runId === null; await sleep(200)) {
        const fresh = (await serverObjects(server)).filter((entry) => !before.includes(entry));
        const ids = fresh.map((entry) => runIdOf(nameOf(entry))).filter((id): id is string => id !== null);
        // A run has its database (PostgreSQL) or its stores (MySQL) once episodes are under way.
        const counts = new Map<string, number>();
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
        runId = [...counts].find(([, count]) => count >= 4)?.[0] ?? null;
      }
      process.kill(-(child.pid as number), 'SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(runId).not.toBeNull();
      const killed = runId as string;

      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
        if (!(await runConnected(server, killed))) break;
      }
      const left = (await serverObjects(server)).filter((entry) => runIdOf(nameOf(entry)) === killed);
      expect(left.length).toBeGreaterThan(0);

      const cleanup = await runCli(['cleanup', '--env', 'dbbench', '--db', server.url]);
      expect(cleanup.code).toBe(0);
      expect(cleanup.output).toContain(`removed run ${killed}`);

      const after = await serverObjects(server);
      // Nothing that was there before is gone, and nothing of the killed run is left. (Other runs
      // may be working on the same server meanwhile, the other test files' among them, so their
      // objects come and go and are not compared.)
      const others = (entries: string[]) => entries.filter((entry) => runIdOf(nameOf(entry)) === null);
      expect(others(before).filter((entry) => !after.includes(entry))).toEqual([]);
      expect(after.filter((entry) => runIdOf(nameOf(entry)) === killed)).toEqual([]);
      expect(others(after)).toEqual(others(before));
    });
  });
}
