/**
 * Sandbox lifecycle costs: p50/p95 of create, prepare (put the repository in place), exec, reset
 * and destroy for the local and the Docker sandbox, and the cost of one episode's sandbox three
 * ways: a local clone per episode, a warm container reset between episodes (what the environment
 * does), and the naive way, a new container per episode, measured in the same run.
 *
 *   npm run bench                       (in packages/env-swegym)
 *   BENCH_ROUNDS=20 npm run bench       more rounds
 */
import {
  containerLabels,
  createDockerSandboxProvider,
  createLocalSandboxProvider,
  dockerAvailable,
  embeddedImage,
  embeddedInstancesPath,
  imageExists,
  loadSweInstances,
  type SweSandbox,
  type SweSandboxProvider,
  type Workspace,
} from '../src/index.js';

const rounds = Number(process.env['BENCH_ROUNDS'] ?? 8);
const execRounds = rounds * 3;

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

async function timed<T>(samples: number[], body: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await body();
  samples.push(performance.now() - start);
  return result;
}

interface Row {
  sandbox: string;
  operation: string;
  samples: number[];
}

/** create, prepare, exec, reset and destroy of one kind of sandbox. */
async function lifecycle(
  name: string,
  provider: SweSandboxProvider,
  image: string | undefined,
  workspace: Workspace,
): Promise<Row[]> {
  const create: number[] = [];
  const prepare: number[] = [];
  const exec: number[] = [];
  const reset: number[] = [];
  const destroy: number[] = [];
  const labels = containerLabels('bench');
  for (let round = 0; round < rounds; round += 1) {
    const sandbox = await timed(create, () => provider.create({ ...(image ? { image } : {}), labels }));
    try {
      await timed(prepare, () => sandbox.prepare(workspace));
      if (round === 0) {
        for (let index = 0; index < execRounds; index += 1) await timed(exec, () => sandbox.exec('git status --short'));
        for (let index = 0; index < rounds; index += 1) {
          await sandbox.exec('echo changed >> README.md && touch scratch.txt');
          await timed(reset, () => sandbox.reset());
        }
      }
    } finally {
      await timed(destroy, () => sandbox.destroy());
    }
  }
  return [
    { sandbox: name, operation: 'create', samples: create },
    { sandbox: name, operation: 'prepare', samples: prepare },
    { sandbox: name, operation: 'exec', samples: exec },
    { sandbox: name, operation: 'reset', samples: reset },
    { sandbox: name, operation: 'destroy', samples: destroy },
  ];
}

/** One episode's sandbox cost: get a sandbox at the base commit, run one command, give it back. */
async function episodes(
  name: string,
  provider: SweSandboxProvider,
  image: string | undefined,
  workspace: Workspace,
  reuse: boolean,
): Promise<Row> {
  const samples: number[] = [];
  const labels = containerLabels('bench');
  let warm: SweSandbox | null = null;
  if (reuse) {
    // The pool keeps sandboxes warm across a whole run: the first one is made before timing.
    warm = await provider.create({ ...(image ? { image } : {}), labels });
    await warm.prepare(workspace);
  }
  try {
    for (let round = 0; round < rounds; round += 1) {
      await timed(samples, async () => {
        let sandbox = warm;
        if (!sandbox) {
          sandbox = await provider.create({ ...(image ? { image } : {}), labels });
          await sandbox.prepare(workspace);
        }
        await sandbox.exec('echo edit >> README.md');
        if (reuse) {
          await sandbox.reset();
          warm = sandbox;
        } else {
          await sandbox.destroy();
        }
      });
    }
  } finally {
    await (warm as SweSandbox | null)?.destroy();
  }
  return { sandbox: name, operation: 'episode', samples };
}

function print(rows: Row[]): void {
  const header = ['sandbox', 'operation', 'n', 'p50 ms', 'p95 ms'];
  const lines = rows.map((row) => [
    row.sandbox,
    row.operation,
    String(row.samples.length),
    percentile(row.samples, 50).toFixed(1),
    percentile(row.samples, 95).toFixed(1),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)),
  );
  const format = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ');
  process.stdout.write(`${format(header)}\n${format(widths.map((width) => '-'.repeat(width)))}\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
}

const { tasks } = await loadSweInstances(embeddedInstancesPath, { embeddedSplit: 'dev' });
const task = tasks[0];
if (!task?.runtime.hostRepo) throw new Error('no embedded instance to bench with');
const workspace: Workspace = {
  kind: 'host',
  hostRepo: task.runtime.hostRepo,
  repoPath: '/testbed',
  baseCommit: task.instance.baseCommit,
};
process.stdout.write(`sandbox bench: ${rounds} rounds (${execRounds} execs), repository of ${task.id}\n\n`);

const rows: Row[] = [];
const local = createLocalSandboxProvider();
// Warm-up: the first local sandbox looks up the python3 behind any version-manager shim.
await (await local.create({})).destroy();
rows.push(...(await lifecycle('local', local, undefined, workspace)));
rows.push(await episodes('local, clone per episode', local, undefined, workspace, false));

const docker = createDockerSandboxProvider();
const daemon = await dockerAvailable(docker.docker);
if (daemon && (await imageExists(docker.docker, embeddedImage))) {
  rows.push(...(await lifecycle('docker', docker, embeddedImage, workspace)));
  rows.push(await episodes('docker, warm + reset', docker, embeddedImage, workspace, true));
  rows.push(await episodes('docker, naive: new container', docker, embeddedImage, workspace, false));
} else {
  process.stdout.write(
    `docker: skipped (${daemon ? `no image ${embeddedImage}` : 'no Docker daemon answers'}: .ci/docker.sh starts one and builds the image)\n\n`,
  );
}
print(rows);
