import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { writeFileAtomic } from '@harness-s/core';

/**
 * Starting PGlite runs initdb inside WebAssembly, which takes seconds. A freshly initialised data
 * directory is the same every time, so the first start saves it (gzipped, per PGlite version) and
 * later starts load it, several times faster. The cache is an optimisation only: any problem with
 * it falls back to a fresh start.
 */
const pgliteVersion: string = (() => {
  try {
    // The package's exports hide its package.json, so find it next to its entry point.
    let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    for (let depth = 0; depth < 4; depth += 1, dir = dirname(dir)) {
      const manifest = join(dir, 'package.json');
      if (existsSync(manifest)) {
        const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (parsed.name === '@electric-sql/pglite' && parsed.version) return parsed.version;
      }
    }
  } catch {
    // Unknown version: the cache file name says so, and a stale cache falls back to a fresh start.
  }
  return 'unknown';
})();

/** PGlite's entry point for `require`, which worker threads load (pglite-worker-source.ts). */
export const pgliteEntryPath: string = createRequire(import.meta.url).resolve('@electric-sql/pglite');

export function pgliteCacheFile(): string {
  const dir = process.env['HARNESS_S_CACHE_DIR'] ?? join(homedir(), '.cache', 'harness-s');
  return join(dir, `pglite-${pgliteVersion}-datadir.tar.gz`);
}

let initialDataDir: Promise<Uint8Array | null> | undefined;

/** The cached initial data directory (gzipped), read once per process; null when there is none. */
export function cachedInitialDataDir(): Promise<Uint8Array | null> {
  initialDataDir ??= readFile(pgliteCacheFile()).then(
    (bytes) => new Uint8Array(bytes),
    () => null,
  );
  return initialDataDir;
}

/** Keeps a freshly initialised data directory for later starts, in this process and in the cache file. */
export async function rememberInitialDataDir(dump: Uint8Array): Promise<void> {
  initialDataDir = Promise.resolve(dump);
  try {
    // Atomic, with a temporary file per writer: several engines, threads or processes may save at once.
    await writeFileAtomic(pgliteCacheFile(), Buffer.from(dump));
  } catch {
    // Only an optimisation.
  }
}

/** Forgets a cached initial data directory that failed to load. */
export function forgetInitialDataDir(): void {
  initialDataDir = Promise.resolve(null);
}

/**
 * Starts a PGlite engine in this thread: in memory from the cached initial data directory when there
 * is one, or on `dataDir`, a folder that keeps the cluster between runs (created on first use). The
 * backend runs its engines in worker threads (pglite-host.ts); this one is for measurements.
 */
export async function startPglite(dataDir?: string): Promise<PGlite> {
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true });
    return PGlite.create({ dataDir });
  }
  const dump = await cachedInitialDataDir();
  if (dump) {
    try {
      return await PGlite.create({ loadDataDir: new Blob([dump]) });
    } catch {
      forgetInitialDataDir();
    }
  }
  const engine = await PGlite.create();
  // Save before any schema is made, so the cache holds a pristine cluster.
  try {
    await rememberInitialDataDir(new Uint8Array(await (await engine.dumpDataDir('gzip')).arrayBuffer()));
  } catch {
    // Only an optimisation.
  }
  return engine;
}
