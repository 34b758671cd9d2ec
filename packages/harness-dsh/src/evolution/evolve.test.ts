import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveSeed, type EpisodeContext, type PlanNode, type Policy } from '@harness-s/core';
import { createCounterEnvironment, createPlainHarness } from '@harness-s/core/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { registerEnvironmentExtras } from '../variants/extras.js';
import { loadPool } from '../variants/pool.js';
import { type EvolveEvent, type EvolveOptions, evolveDefaults, evolvePool } from './evolve.js';

/**
 * A test policy that walks the oracle plan: right at a decision when a directive for its skill is
 * in the system prompt, otherwise only for one seed in three. It counts the turns it answers.
 */
function cuePolicy(): Policy & { turns: number } {
  const policy = {
    id: 'cue',
    version: 'cue@0',
    needsPlan: 'oracle' as const,
    turns: 0,
    describe: () => ({}),
    startEpisode(context: EpisodeContext) {
      const pending: PlanNode[] = [...(context.plan?.nodes ?? [])];
      return {
        async respond(request: { messages: Array<{ role: string; content: string }> }) {
          policy.turns += 1;
          const system = request.messages[0]?.content ?? '';
          for (let node = pending.shift(); node; node = pending.shift()) {
            if (node.kind === 'act')
              return {
                message: context.harness.codec.encode([node.action]),
                usage: { promptTokens: 0, completionTokens: 0 },
              };
            const cued = context.harness.spec.prompt.directives.some(
              (directive) => directive.skill === node.skill && system.includes(directive.text),
            );
            pending.unshift(...(cued || deriveSeed(context.seed, node.skill) % 3 === 0 ? node.right : node.wrong));
          }
          return {
            message: { role: 'assistant' as const, content: 'done' },
            usage: { promptTokens: 0, completionTokens: 0 },
          };
        },
      };
    },
  };
  return policy;
}

beforeAll(() => {
  registerEnvironmentExtras({
    env: 'counter',
    transforms: [
      {
        kind: 'lying-wrapper',
        direction: 'count',
        description: 'says it only adds, but also calls a tool the environment does not have',
        note: 'The harness helps you submit.',
        emits: ['add'],
        expand: (action) => (action.tool === 'submit' ? [{ tool: 'teleport', arguments: {} }, action] : null),
      },
    ],
    failureSignals: (trajectory) =>
      trajectory.evaluation?.success ? [] : [{ kind: 'miscount', skill: 'count', evidence: 'the counter is off' }],
  });
});

async function setup(out: string, overrides: Partial<EvolveOptions> = {}) {
  const { environment } = createCounterEnvironment();
  const { tasks } = await environment.loadTasks({});
  const base = { ...createPlainHarness().spec, id: 'h0', family: 'dsh' };
  const events: EvolveEvent[] = [];
  const policy = cuePolicy();
  const options: EvolveOptions = {
    environment,
    policy,
    tasks,
    split: 'dev',
    base,
    out,
    rounds: 2,
    k: 3,
    seed: 4,
    concurrency: 2,
    parentsPerRound: 2,
    directionsPerParent: 2,
    childrenPerDirection: 2,
    solvedRule: 'majority',
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  return { options, events, policy };
}

describe('evolvePool', () => {
  it('grows a pool from the failures of H0, keeping compliant children and rejecting the others with the reason', async () => {
    const out = await mkdtemp(join(tmpdir(), 'evolve-'));
    const { options, events } = await setup(out);
    const summary = await evolvePool(options);
    const index = JSON.parse(await readFile(join(out, 'index.json'), 'utf8'));
    expect(index.rounds[0].parents).toEqual(['h0']);
    // The lying wrapper passes the static check but its trajectories call a tool H0 cannot emit.
    expect(index.rejected).toEqual([
      expect.objectContaining({
        operator: 'tool-transform',
        reason: expect.stringMatching(/^protocol: count-\d#v-\w+#0 turn \d: H0 cannot emit teleport/),
      }),
    ]);
    expect(index.members).toEqual([
      expect.objectContaining({ parent: 'h0', direction: 'count', operator: 'directive', status: 'accepted' }),
    ]);
    const pool = await loadPool(out, { base: options.base });
    expect(pool.map((spec) => spec.id)).toEqual(index.members.map((member: { id: string }) => member.id));
    expect(pool[0]?.prompt.directives[0]).toMatchObject({ skill: 'count', text: 'Always add the right amount.' });
    // H0 solves only the tasks its seeds favour; the rule for the skill solves them all.
    expect(summary.h0Coverage).toBeLessThan(1);
    expect(summary).toMatchObject({ jointCoverage: 1, bestSingleCoverage: 1, poolSize: 1, rejected: 1 });
    expect(summary.variants[0]?.helps.length).toBeGreaterThan(0);
    // Round 2 expands the child, which fails nowhere: no new children.
    expect(index.rounds[1]).toMatchObject({ round: 2, parents: [pool[0]?.id], children: [] });
    expect(events.filter((event) => event.kind === 'evaluation-done')).toHaveLength(3);
  });

  it('takes the defaults of harness-s evolve for the options not given', async () => {
    const out = await mkdtemp(join(tmpdir(), 'evolve-'));
    const { options } = await setup(out);
    const { environment, policy, tasks, split, base } = options;
    await evolvePool({ environment, policy, tasks, split, base, out, rounds: undefined });
    const index = JSON.parse(await readFile(join(out, 'index.json'), 'utf8'));
    expect(index).toMatchObject({ k: evolveDefaults.k, seed: evolveDefaults.seed, solvedRule: 'majority' });
    expect(index.rounds.length).toBeLessThanOrEqual(evolveDefaults.rounds);
  });

  it('resumes after a kill without redoing finished work, and ends where an uninterrupted run ends', async () => {
    const straight = await setup(await mkdtemp(join(tmpdir(), 'evolve-')));
    const expected = await evolvePool(straight.options);

    const out = await mkdtemp(join(tmpdir(), 'evolve-'));
    const controller = new AbortController();
    const first = await setup(out, { signal: controller.signal });
    let attempts = 0;
    first.options.onEvent = (event) => {
      // Kill the run in the middle of the second harness's evaluation.
      if (event.kind !== 'attempt' || event.id === 'h0') return;
      attempts += 1;
      if (attempts === 4) controller.abort(new Error('killed'));
    };
    await expect(evolvePool(first.options)).rejects.toThrow();
    // Stopped, its folder is not taken for a pool: it may lack variants.
    await expect(loadPool(out, { base: first.options.base })).rejects.toThrow(
      /its evolution has not finished .*continue it with `harness-s evolve --out/,
    );

    const second = await setup(out);
    const resumed = await evolvePool(second.options);
    expect(resumed).toEqual({ ...expected });
    const skipped = second.events
      .filter((event) => event.kind === 'skip')
      .map((event) => event.kind === 'skip' && event.id);
    expect(skipped).toEqual(['h0']);
    const restarted = second.events.find((event) => event.kind === 'evaluation-start');
    expect(restarted).toMatchObject({ kind: 'evaluation-start', resumed: expect.any(Number) });
    expect(restarted?.kind === 'evaluation-start' && restarted.resumed).toBeGreaterThan(0);
    // Together the two runs answered no more turns than the uninterrupted one, but for the attempts
    // in flight when it was killed (two at most, of two turns each): nothing finished was redone.
    expect(first.policy.turns + second.policy.turns).toBeLessThanOrEqual(straight.policy.turns + 4);
    const pool = await loadPool(out, { base: second.options.base });
    expect(pool.length).toBe(resumed.poolSize);
    // A member index.json lists whose file is gone is said, not silently left out.
    await rm(join(out, `${pool[0]?.id}.json`));
    await expect(loadPool(out, { base: second.options.base })).rejects.toThrow(
      `index.json lists a member without its file: ${pool[0]?.id}.json`,
    );
  });

  it('refuses to resume a folder made with other settings', async () => {
    const out = await mkdtemp(join(tmpdir(), 'evolve-'));
    const { options } = await setup(out, { rounds: 1 });
    await evolvePool(options);
    await expect(evolvePool({ ...options, k: 2 })).rejects.toThrow(/was evolved with a different k/);
  });

  it('refuses a folder it did not make, and leaves its files as they were', async () => {
    const out = await mkdtemp(join(tmpdir(), 'evolve-'));
    await writeFile(join(out, 'config.json'), '{"command":"train"}');
    await writeFile(join(out, 'summary.json'), '{"method":"grpo"}');
    const { options } = await setup(out, { rounds: 1 });
    await expect(evolvePool(options)).rejects.toThrow(/already holds a run \(config\.json\)/);
    expect(await readFile(join(out, 'summary.json'), 'utf8')).toBe('{"method":"grpo"}');
    expect(await readdir(out)).toEqual(['config.json', 'summary.json']);
    // A folder holding only the state/ an evolution killed as it began is taken up again.
    const begun = await mkdtemp(join(tmpdir(), 'evolve-'));
    await mkdir(join(begun, 'state', 'runs'), { recursive: true });
    const again = await setup(begun, { rounds: 1 });
    await expect(evolvePool(again.options)).resolves.toBeDefined();
  });
});
