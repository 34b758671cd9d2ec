import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toChatMessages } from '../chat-format.js';
import type { Message } from '../message.js';
import { readTrajectories } from '../run-store.js';
import { createCounterEnvironment, createPlainHarness } from '../testing/index.js';
import { policy, run } from './__fixtures__/rescue-run.js';
import { BatchExportTrainer } from './batch-export-trainer.js';
import { exampleOfAttempt, type TrainingExample, trainingExample, trainingExamples } from './examples.js';

const h0System = createPlainHarness().start({ id: 't', instruction: '' } as never, [])[0]?.content;

describe('what a trainer is given', () => {
  it('each group carries its task, and each attempt the messages to train on in its context', async () => {
    const { trainer } = await run('harness-s', { rescue: { variants: 3, attemptsPerVariant: 1 } });
    const groups = trainer.updates.flat();
    expect(groups.every((group) => group.task.id === group.taskId)).toBe(true);
    const rescued = groups.find((group) => group.taskId === 'count-2');
    const attempt = rescued?.trajectories.find(({ trajectory }) => trajectory.harnessId === 'good-a');
    // Rendered under its variant; re-rendered under H0 for the trainer (the default context).
    expect(attempt?.context).toBe('h0');
    expect(attempt?.trajectory.messages[0]?.content).toBe(`${h0System} Variant good-a.`);
    expect(attempt?.messages[0]?.content).toBe(h0System);
    // The same actions and observations, encoded by H0's codec.
    const turns = (messages: readonly Message[] | undefined) =>
      messages
        ?.slice(2)
        .map((message) => (message.role === 'assistant' ? message.toolCalls?.[0]?.arguments : message.content));
    expect(turns(attempt?.messages)).toEqual(turns(attempt?.trajectory.messages));
    expect(turns(attempt?.messages)).toEqual(['{"n":2}', 'counter = 2', '{}', 'submitted']);
  });

  it('with rescueContext variant, the rescued attempts as they were rendered', async () => {
    const { trainer } = await run('harness-s', { rescueContext: 'variant' });
    const attempt = trainer.updates
      .flat()
      .flatMap((group) => group.trajectories)
      .find(({ trajectory }) => trajectory.harnessId !== 'plain');
    expect(attempt?.context).toBe('variant');
    expect(attempt?.messages).toBe(attempt?.trajectory.messages);
  });

  it('trajectories keep the tools offered to the model', async () => {
    const { dir } = await run('grpo');
    const [trajectory] = await readTrajectories(dir);
    expect(trajectory?.tools?.map((tool) => tool.name)).toEqual(['add', 'submit']);
  });
});

describe('BatchExportTrainer', () => {
  it("writes each step's batch in the run's folder when given none", async () => {
    const trainer = new BatchExportTrainer({ policy });
    const { dir } = await run('harness-s', {}, undefined, trainer as never);
    const lines = (await readFile(join(dir, 'batches', 'step-1.jsonl'), 'utf8')).trim().split('\n');
    const examples = lines.map((line) => JSON.parse(line) as TrainingExample);
    const rescued = examples.filter((example) => example.harnessId !== 'plain');
    expect(rescued.length).toBeGreaterThan(0);
    expect(rescued.every((example) => example.context === 'h0' && example.messages[0]?.content === h0System)).toBe(
      true,
    );
    expect(examples.every((example) => example.tools?.length === 2)).toBe(true);
    // In the chat completions format, each naming its attempt; attempts under H0 are H0's rendering.
    expect(examples[0]?.tools?.[0]).toMatchObject({ type: 'function', function: { name: 'add' } });
    const trajectories = new Map((await readTrajectories(dir)).map((trajectory) => [trajectory.id, trajectory]));
    for (const example of examples) {
      expect(trajectories.get(example.attemptId)?.policyVersion).toBe(example.policyVersion);
      if (example.harnessId === 'plain') expect(example.context).toBe('h0');
    }
    const call = examples.flatMap((example) => example.messages).find((message) => message.role === 'assistant');
    expect(call).toMatchObject({ tool_calls: [{ type: 'function', function: { name: 'add' } }] });
  });

  it('given no folder, serves one run after another, each in its own folder', async () => {
    const trainer = new BatchExportTrainer({ policy });
    const first = await run('grpo', {}, undefined, trainer as never);
    const second = await run('grpo', {}, undefined, trainer as never);
    expect(second.dir).not.toBe(first.dir);
    for (const { dir } of [first, second])
      expect((await readFile(join(dir, 'batches', 'step-2.jsonl'), 'utf8')).length).toBeGreaterThan(0);
  });

  it('refuses a folder other than the run it is used in, before the run starts', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'batches-'));
    const trainer = new BatchExportTrainer({ policy, dir: elsewhere });
    await expect(run('harness-s', {}, undefined, trainer as never)).rejects.toThrow(
      `BatchExportTrainer writes to ${elsewhere}, but the run's folder is`,
    );
  });

  it('used outside train without a folder, says what it needs', async () => {
    await expect(new BatchExportTrainer({ policy }).update([], 1)).rejects.toThrow(/has no folder: give it dir/);
  });
});

describe('trainingExamples', () => {
  it("turns a run's retained attempts into examples, re-rendered under H0 or as rendered", async () => {
    const { dir } = await run('harness-s', { rescue: { variants: 3, attemptsPerVariant: 1 } });
    const trajectories = await readTrajectories(dir);
    const { tasks } = await createCounterEnvironment().environment.loadTasks({});
    const h0 = createPlainHarness();
    const underH0 = trainingExamples(trajectories, { tasks, h0, context: 'h0' });
    const retained = trajectories.filter((trajectory) => trajectory.training?.retained);
    expect(underH0.map((example) => example.groupId)).toEqual(retained.map((t) => t.training?.groupId));
    expect(underH0.every((example) => example.messages[0]?.content === h0System)).toBe(true);
    // Attempts under H0 keep their record (and its tool-call ids) and say so, whatever the context.
    const base = underH0.filter((example) => example.harnessId === 'plain');
    expect(base.length).toBeGreaterThan(0);
    expect(base.every((example) => example.context === 'h0')).toBe(true);
    const recorded = new Map(trajectories.map((trajectory) => [trajectory.id, trajectory]));
    const first = base[0];
    const ids = (messages: readonly { role: string }[]) => JSON.stringify(messages).match(/"call_[^"]*"/g);
    expect(ids(first?.messages ?? [])).toEqual(
      ids(toChatMessages(recorded.get(first?.attemptId ?? '')?.messages ?? [])),
    );
    const rendered = trainingExamples(trajectories, { tasks: [], h0, context: 'variant' });
    expect(rendered.filter((example) => example.harnessId === 'good-a')[0]?.messages[0]?.content).toBe(
      `${h0System} Variant good-a.`,
    );
    // `all` adds the base attempts the rescue replaced.
    expect(trainingExamples(trajectories, { tasks, h0, context: 'h0', all: true })).toHaveLength(trajectories.length);
  });

  it('names an attempt whose task it was not given, when it must re-render it', async () => {
    const { dir } = await run('harness-s');
    const trajectories = await readTrajectories(dir);
    // The base attempts under H0 need no task; the first rescued one does.
    expect(() => trainingExamples(trajectories, { tasks: [], h0: createPlainHarness(), context: 'h0' })).toThrow(
      /task count-\d of \d:count-\d#(good|bad)-\w#\d \(split dev\) is not among the tasks given/,
    );
  });

  it("refuses to make an attempt's example with another task's prompt", async () => {
    const { dir } = await run('harness-s');
    const rescued = (await readTrajectories(dir)).find((trajectory) => trajectory.training?.role === 'rescue');
    const { tasks } = await createCounterEnvironment().environment.loadTasks({});
    const own = tasks.find((task) => task.id === rescued?.taskId);
    const other = tasks.find((task) => task.id !== rescued?.taskId);
    if (!rescued || !own || !other) throw new Error('the run rescued no group');
    const h0 = createPlainHarness();
    expect(exampleOfAttempt(rescued, { task: own, h0, context: 'h0' })?.taskId).toBe(rescued.taskId);
    expect(() => exampleOfAttempt(rescued, { task: other, h0, context: 'h0' })).toThrow(
      `exampleOfAttempt: ${rescued.id} is an attempt at task ${rescued.taskId}, and the task given is ${other.id}`,
    );
  });

  it("gives token ids, log-probabilities and a reasoning model's thinking per assistant message, only where the message is the reply as sampled", () => {
    const call = (id: string, sql: string) => ({ id, name: 'execute', arguments: JSON.stringify({ sql }) });
    const turn = (index: number, content: string, calls: ReturnType<typeof call>[], extra: object = {}) => ({
      index,
      response: { content, toolCalls: calls },
      usage: { promptTokens: 1, completionTokens: 1 },
      latencyMs: 1,
      completionTokenIds: [index, index],
      completionLogprobs: [-index, -index],
      actions: [],
      ...extra,
    });
    const assistant = (content: string, calls: ReturnType<typeof call>[]): Message => ({
      role: 'assistant',
      content,
      toolCalls: calls,
    });
    const recorded: Message[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      assistant('look', [call('a', 'SELECT 1')]),
      { role: 'tool', content: '1', toolCallId: 'a' },
      assistant('oops', [call('b', '{')]),
      { role: 'user', content: 'format error' },
      assistant('both', [call('c', 'SELECT 2'), call('d', 'SELECT 3')]),
      { role: 'tool', content: '2', toolCallId: 'c' },
      { role: 'tool', content: '3', toolCallId: 'd' },
      assistant('', [call('e', 'SELECT 1')]),
    ];
    const trajectory = {
      id: 'x',
      taskId: 't',
      harnessId: 'variant',
      policyVersion: 'p',
      messages: recorded,
      turns: [
        turn(0, 'look', [call('a', 'SELECT 1')], { reasoning: 'first, look' }),
        turn(1, 'oops', [call('b', '{')], { formatError: 'bad JSON' }),
        turn(2, 'both', [call('c', 'SELECT 2'), call('d', 'SELECT 3')], { reasoning: 'two at once' }),
        turn(3, '', [call('e', 'SELECT 1')]),
      ],
      evaluation: { reward: 1 },
    } as never;
    const example = (messages: Message[]) =>
      trainingExample(trajectory, { groupId: 'g', step: 1, context: 'h0', messages, advantage: 1 });
    // As recorded: one message per turn, the one that failed to parse included.
    expect(example(recorded).completionTokenIds).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(example(recorded).completionLogprobs).toEqual([
      [-0, -0],
      [-1, -1],
      [-2, -2],
      [-3, -3],
    ]);
    const thinking = (messages: Message[]) =>
      example(messages).messages.flatMap((message) =>
        message.role === 'assistant' ? [message.reasoning_content ?? null] : [],
      );
    expect(thinking(recorded)).toEqual(['first, look', null, 'two at once', null]);
    // Re-rendered under a protocol of one action per reply: the failed turn has no message, the
    // split reply is not what was sampled, and calls are numbered anew.
    const rerendered: Message[] = [
      { role: 'system', content: 'h0' },
      { role: 'user', content: 'u' },
      assistant('look', [call('call_0', 'SELECT 1')]),
      { role: 'tool', content: '1', toolCallId: 'call_0' },
      assistant('both', [call('call_1', 'SELECT 2')]),
      { role: 'tool', content: '2', toolCallId: 'call_1' },
      assistant('', [call('call_2', 'SELECT 3')]),
      { role: 'tool', content: '3', toolCallId: 'call_2' },
      assistant('', [call('call_3', 'SELECT 1')]),
    ];
    expect(example(rerendered).completionTokenIds).toEqual([[0, 0], null, null, [3, 3]]);
    expect(example(rerendered).completionLogprobs).toHaveLength(4);
    expect(thinking(rerendered)).toEqual(['first, look', null, null, null]);
    expect(example(rerendered).messages[2]).toEqual({
      role: 'assistant',
      content: 'look',
      tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'execute', arguments: '{"sql":"SELECT 1"}' } }],
      reasoning_content: 'first, look',
    });
  });
});
