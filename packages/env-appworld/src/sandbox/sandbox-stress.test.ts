import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../api/definition.js';
import { CodeSandbox } from './code-sandbox.js';
import { SandboxWorkerPool } from './worker-pool.js';

/**
 * Many episodes at once on one pool, under CPU load: every API reply must be the reply to its own
 * call, and variables must live on across the blocks of an episode and nowhere else. Sizes can be
 * raised for a longer run: SANDBOX_STRESS_LANES, SANDBOX_STRESS_MS, SANDBOX_STRESS_BUSY.
 */

const lanes = Number(process.env['SANDBOX_STRESS_LANES'] ?? 12);
const runMs = Number(process.env['SANDBOX_STRESS_MS'] ?? 4_000);
const busyThreads = Number(process.env['SANDBOX_STRESS_BUSY'] ?? 2);
const blocksPerEpisode = 5;
const callsPerBlock = 6;

/** Threads that keep the cores busy until `stop` is set. */
function startBusyThreads(count: number): { stop: () => Promise<void> } {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const source = `const { workerData } = require('node:worker_threads');
const flag = new Int32Array(workerData);
let x = 0;
while (Atomics.load(flag, 0) === 0) { for (let i = 0; i < 100000; i += 1) x = (x * 31 + i) | 0; }`;
  const threads = Array.from({ length: count }, () => new Worker(source, { eval: true, workerData: flag.buffer }));
  return {
    stop: async () => {
      Atomics.store(flag, 0, 1);
      await Promise.all(threads.map((thread) => thread.terminate()));
    },
  };
}

/** Keeps the host thread busy for about `ms`. */
function spin(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // busy
  }
}

/** A deterministic stream of numbers in [0, 1). */
function numbers(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

/** The code of block `block` of an episode `tag`: checked calls, a kept variable, a check of the earlier ones. */
function blockCode(tag: string, block: number, failing: boolean): string {
  const lines = [
    `for (var i = 0; i < ${callsPerBlock}; i += 1) {`,
    `  var k = '${tag}/${block}/' + i;`,
    '  var reply = apis.music.echo({ k: k });',
    "  if (!reply || reply.k !== k) print('MISMATCH', k, JSON.stringify(reply));",
    "  if (typeof lastN !== 'undefined' && reply && reply.n !== lastN + 1) print('GAP', k, lastN, JSON.stringify(reply));",
    '  var lastN = reply ? reply.n : lastN;',
    '}',
    `var kept${block} = apis.music.echo({ k: '${tag}/kept${block}' }).k;`,
    'lastN += 1;',
  ];
  for (let earlier = 0; earlier < block; earlier += 1) {
    lines.push(
      `if (typeof kept${earlier} === 'undefined' || kept${earlier} !== '${tag}/kept${earlier}') print('LOST', '${tag}', ${earlier}, typeof kept${earlier}, String(typeof kept${earlier} === 'undefined' ? '' : kept${earlier}));`,
    );
  }
  // A block whose last statement fails: its variable is declared in the engine, and stays undefined.
  if (failing) lines.push(`var failed${block} = apis.music.fail({ k: '${tag}/failed${block}' }).k;`);
  return lines.join('\n');
}

describe('code sandbox: many episodes at once under load', () => {
  const pool = new SandboxWorkerPool(4);
  afterAll(async () => {
    await pool.close();
  });

  it('answers every API call with its own reply and keeps each episode its own variables', {
    timeout: runMs + 30_000,
  }, async () => {
    const busy = startBusyThreads(busyThreads);
    const problems: string[] = [];
    let episodes = 0;
    let blocks = 0;
    const deadline = Date.now() + runMs;
    const lane = async (index: number): Promise<void> => {
      const random = numbers(index + 1);
      for (let episode = 0; Date.now() < deadline; episode += 1) {
        const tag = `L${index}E${episode}`;
        let n = 0;
        const sandbox = await CodeSandbox.create({
          apiNames: { music: ['echo', 'fail'] },
          // Three task clocks: some episodes reuse the warmed engine, others need a new one.
          now: `2024-06-1${Math.floor(random() * 3)}T10:00:00`,
          limits: { timeoutMs: 5_000, memoryBytes: 16 * 1024 * 1024 },
          pool,
          callApi: (_app, api, args) => {
            if (random() < 0.2) spin(random() * 2);
            if (api === 'fail') throw new ApiError(401, 'Invalid credentials.');
            n += 1;
            return { ...(args as Record<string, unknown>), n };
          },
        });
        try {
          for (let block = 0; block < blocksPerEpisode; block += 1) {
            const failing = random() < 0.3;
            const outcome = await sandbox.run(blockCode(tag, block, failing));
            blocks += 1;
            const printed = outcome.output.split('\n').filter((line) => /^(MISMATCH|GAP|LOST)/.test(line));
            problems.push(...printed.map((line) => `${tag} block ${block}: ${line}`));
            if (outcome.ok === failing) problems.push(`${tag} block ${block}: unexpected outcome ${outcome.output}`);
            if (random() < 0.3) spin(random() * 5);
            else await new Promise((resolve) => setImmediate(resolve));
          }
        } finally {
          sandbox.dispose();
        }
        episodes += 1;
      }
    };
    try {
      await Promise.all(Array.from({ length: lanes }, (_, index) => lane(index)));
    } finally {
      await busy.stop();
    }
    expect(problems.slice(0, 20), `${problems.length} problems in ${blocks} blocks of ${episodes} episodes`).toEqual(
      [],
    );
    expect(episodes).toBeGreaterThan(0);
  });
});
