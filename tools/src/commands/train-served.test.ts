import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TrainingExample, TrainSummary } from '@harness-s/core';
import { plainHarnessSpec } from '@harness-s/core/testing';
import { deriveVariant, writeVariant } from '@harness-s/harness-dsh';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatServer, startCounterModel } from '../__fixtures__/chat-server.js';
import { captureStderr } from '../__fixtures__/stderr.js';
import { loadPlugins } from '../plugins.js';
import { runTrain } from './train.js';

let chat: ChatServer;
beforeAll(async () => {
  await loadPlugins(new URL('../../../tests/src/fixtures/counter-plugin.ts', import.meta.url).href);
  // Missing by one on every third addition.
  chat = await startCounterModel((addition) => addition % 3 === 0);
});
afterAll(() => chat.close());

const lines = async (path: string) => (await readFile(path, 'utf8')).trim().split('\n');
/** A hook that logs its step and batch in the run folder. */
const logHook = `node -e "require('fs').appendFileSync(process.env.HARNESS_S_RUN + '/hook.log', process.env.HARNESS_S_STEP + ' ' + process.env.HARNESS_S_BATCH + '\\\\n')"`;

describe('train with a model served elsewhere', () => {
  it('writes each step batch for an external trainer and hands it over before the next step; a failed hand-over stops the run, which resumes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'train-served-'));
    const out = join(dir, 'run');
    const flags = {
      env: 'counter',
      method: 'grpo',
      policy: 'openai',
      model: 'test',
      baseUrl: chat.baseUrl,
      steps: 2,
      batchSize: 3,
      k: 3,
      seed: 1,
      evalK: 1,
      concurrency: 2,
      quiet: true,
    };
    await expect(runTrain({ ...flags, out, onBatch: 'exit 3' })).rejects.toThrow(
      /--on-batch "exit 3" exited with code 3 at step 1 \(its output, if any, is above\); once its cause is fixed, the run continues from its last checkpoint with --resume/,
    );
    const summary = TrainSummary.parse(
      await runTrain({ ...flags, resume: out, onBatch: logHook }, new Set(['resume', 'onBatch'])),
    );
    expect(summary.steps).toBe(2);
    const handed = (await lines(join(out, 'hook.log'))).map((line) => line.split(' '));
    expect(handed).toEqual([
      ['1', join(out, 'batches', 'step-1.jsonl')],
      ['2', join(out, 'batches', 'step-2.jsonl')],
    ]);
    for (const [, path] of handed) {
      const examples = (await lines(path as string)).map((line) => JSON.parse(line) as TrainingExample);
      expect(examples).toHaveLength(3 * 3);
      expect(examples.every((example) => example.harnessId === 'h0' && example.messages.length >= 4)).toBe(true);
      // Group-relative advantages: zero in a group with one outcome, summing to zero in a mixed one.
      const groups = new Map<string, TrainingExample[]>();
      for (const example of examples) groups.set(example.groupId, [...(groups.get(example.groupId) ?? []), example]);
      for (const group of groups.values()) {
        const sum = group.reduce((total, example) => total + example.advantage, 0);
        expect(Math.abs(sum)).toBeLessThan(1e-9);
        const mixed = new Set(group.map((example) => example.reward)).size > 1;
        expect(group.every((example) => example.advantage === 0)).toBe(!mixed);
      }
    }
    expect(summary.effectiveGroupRate).toBeGreaterThan(0);
    const config = JSON.parse(await readFile(join(out, 'config.json'), 'utf8'));
    expect(config.trainer).toBe('batch-export');
    expect(config.policy).toMatchObject({ model: 'test' });
    expect(existsSync(join(out, 'checkpoints', 'latest.json'))).toBe(true);
  });

  it('warns before a hand-over that attempts were lost to the server, and hands over the rest', async () => {
    // The server fails every request about count-7, one of step 1's three tasks (seed 1).
    const failing = await startCounterModel(undefined, (target) => target === 7);
    const out = join(await mkdtemp(join(tmpdir(), 'train-served-lost-')), 'run');
    try {
      const text = await captureStderr(() =>
        runTrain({
          env: 'counter',
          method: 'grpo',
          policy: 'openai',
          model: 'test',
          baseUrl: failing.baseUrl,
          maxRetries: 0,
          steps: 2,
          batchSize: 3,
          k: 3,
          seed: 1,
          evalK: 1,
          concurrency: 2,
          out,
          onBatch: 'true',
        }),
      );
      const batch = async (step: number) =>
        (await lines(join(out, 'batches', `step-${step}.jsonl`))).map(
          (line) => (JSON.parse(line) as TrainingExample).taskId,
        );
      expect(new Set(await batch(1))).toEqual(new Set(['count-5', 'count-17']));
      const warning =
        'warning: step 1: 3 of 9 attempts lost to infrastructure errors after their retries; they are left out of the update, and 1 group trains on fewer attempts or not at all';
      expect(text).toContain(warning);
      // Said before the batch is handed over.
      expect(text.indexOf(warning)).toBeLessThan(text.indexOf('step 1: 6 examples in'));
      expect(await batch(2)).toHaveLength(9);
      expect(text).not.toContain('warning: step 2:');
    } finally {
      await failing.close();
    }
  });

  it('runs an attempt lost to the server again --infra-retries times, and records how many', async () => {
    const down = await startCounterModel(undefined, () => true);
    const dir = await mkdtemp(join(tmpdir(), 'train-served-retries-'));
    const requests = async (infraRetries: number) => {
      const before = down.prompts.length;
      const out = join(dir, `retries-${infraRetries}`);
      await expect(
        runTrain({
          env: 'counter',
          method: 'grpo',
          policy: 'openai',
          model: 'test',
          baseUrl: down.baseUrl,
          maxRetries: 0,
          infraRetries,
          skipInitialEval: true,
          steps: 1,
          batchSize: 1,
          k: 2,
          seed: 1,
          evalK: 1,
          concurrency: 1,
          quiet: true,
          out,
        }),
      ).rejects.toThrow(/step 1: every attempt ended in an infrastructure error/);
      expect(JSON.parse(await readFile(join(out, 'config.json'), 'utf8')).config.maxInfraRetries).toBe(infraRetries);
      return down.prompts.length - before;
    };
    try {
      // Two attempts, each run 1 + --infra-retries times, each of its runs one request (--max-retries 0).
      expect(await requests(0)).toBe(2);
      expect(await requests(3)).toBe(8);
    } finally {
      await down.close();
    }
  });

  it("refuses the simulated policy's flags for a model, and a hand-over for the simulated policy", async () => {
    const base = { env: 'counter', method: 'grpo', steps: 1, batchSize: 1, k: 1, seed: 0, evalK: 1, concurrency: 1 };
    const model = { policy: 'openai', model: 'test', baseUrl: chat.baseUrl };
    await expect(runTrain({ ...base, ...model, learningRate: 2 })).rejects.toThrow(
      /--learning-rate: only for the simulated policy; --policy is 'openai'/,
    );
    await expect(runTrain({ ...base, onBatch: 'true' })).rejects.toThrow(
      /--on-batch hands batches to an external trainer/,
    );
    await expect(runTrain({ ...base, ...model, onBatchTimeout: 60 })).rejects.toThrow(
      '--on-batch-timeout limits an --on-batch command; give --on-batch too',
    );
  });

  it('shows the progress of anchoring the router on the model, on a sample of the validation tasks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'train-served-router-'));
    const pool = join(dir, 'pool');
    await mkdir(pool);
    // The counter plug-in's H0 with one rule, as evolution derives a variant.
    const h0 = plainHarnessSpec({ id: 'h0', family: 'dsh' });
    const spec = deriveVariant(h0, h0, {
      operator: 'directive',
      direction: 'count',
      description: 'rule for count',
      operations: [
        {
          op: 'add-directive',
          directive: { id: 'rule-count', text: 'Add exactly the target.', direction: 'count', skill: 'count' },
        },
      ],
    });
    await writeVariant(pool, spec);
    const text = await captureStderr(() =>
      runTrain({
        env: 'counter',
        method: 'harness-s',
        policy: 'openai',
        model: 'test',
        baseUrl: chat.baseUrl,
        pool,
        profileTasks: 2,
        profileK: 1,
        steps: 1,
        batchSize: 2,
        k: 2,
        seed: 1,
        evalK: 1,
        concurrency: 2,
        out: join(dir, 'run'),
      }),
    );
    expect(text).toContain(`router: anchoring profiles (step-0 policy, 2 tasks): 2/2 | ${spec.id}`);
    expect(text).toContain('router: profiles anchored on test (2 validation tasks)');
  });
});
