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

export function pgliteCacheFile(): string {
  const dir = process.env['HARNESS_S_CACHE_DIR'] ?? join(homedir(), '.cache', 'harness-s');
  return join(dir, `pglite-${pgliteVersion}-datadir.tar.gz`);
}

let initialDataDir: Promise<Blob | null> | undefined;

async function readCachedDataDir(): Promise<Blob | null> {
  try {
    return new Blob([await readFile(pgliteCacheFile())]);
  } catch {
    return null;
  }
}

async function saveDataDir(engine: PGlite): Promise<Blob | null> {
  try {
    const dump = await engine.dumpDataDir('gzip');
    // Atomic, with a temporary file per writer: worker threads of one process may save at once.
    await writeFileAtomic(pgliteCacheFile(), Buffer.from(await dump.arrayBuffer()));
    return dump;
  } catch {
    return null;
  }
}

/**
 * Starts a PGlite engine: in memory from the cached initial data directory when there is one, or
 * on `dataDir`, a folder that keeps the cluster between runs (created on first use).
 */
export async function startPglite(dataDir?: string): Promise<PGlite> {
  if (dataDir !== undefined) {
    await mkdir(dataDir, { recursive: true });
    return PGlite.create({ dataDir });
  }
  initialDataDir ??= readCachedDataDir();
  const dump = await initialDataDir;
  if (dump) {
    try {
      return await PGlite.create({ loadDataDir: dump });
    } catch {
      initialDataDir = Promise.resolve(null);
    }
  }
  const engine = await PGlite.create();
  // Save before any schema is made, so the cache holds a pristine cluster.
  initialDataDir = saveDataDir(engine);
  await initialDataDir;
  return engine;
}
