import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, HarnessError, rerenderTrajectory, type StepResult, type Trajectory } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { dbbenchTextCodec } from './codecs/dbbench-text.js';
import { toolCallsCodec } from './codecs/tool-calls.js';
import { dbbenchH0 } from './dbbench.js';
import { createHarness, elidedObservation } from './harness.js';
import { resolveHarness } from './registry.js';

const task = { id: 't', env: 'dbbench', split: 'dev', instruction: 'How many rows?', tags: [] };
const result = (observation: string): StepResult => ({ observation, done: false });

describe('tool-calls codec', () => {
  it('round-trips actions through encode and decode', () => {
    const actions = [{ tool: 'execute_sql', arguments: { query: 'SELECT 1' } }];
    const decoded = toolCallsCodec.decode(toolCallsCodec.encode(actions, 'why'), []);
    expect(decoded).toEqual({ ok: true, actions: [{ action: actions[0], callId: 'call_0' }] });
  });

  it('reports a turn without a call, or with arguments that are not a JSON object', () => {
    expect(toolCallsCodec.decode({ role: 'assistant', content: 'hmm' }, [])).toMatchObject({ ok: false });
    const broken = {
      role: 'assistant' as const,
      content: '',
      toolCalls: [{ id: 'a', name: 'execute_sql', arguments: '{"query": ' }],
    };
    expect(toolCallsCodec.decode(broken, [])).toMatchObject({
      ok: false,
      error: expect.stringContaining('not valid JSON'),
    });
    const list = { role: 'assistant' as const, content: '', toolCalls: [{ id: 'a', name: 'x', arguments: '[1]' }] };
    expect(toolCallsCodec.decode(list, [])).toMatchObject({ ok: false, error: expect.stringContaining('JSON object') });
  });
});

describe('DBBench text codec', () => {
  it("reads AgentBench's operation format, joining a multi-line statement", () => {
    const content = 'I will count.\nAction: Operation\n```sql\nSELECT COUNT(*)\nFROM `t`;\n```';
    expect(dbbenchTextCodec.decode({ role: 'assistant', content }, [])).toEqual({
      ok: true,
      actions: [{ action: { tool: 'execute_sql', arguments: { query: 'SELECT COUNT(*) FROM `t`;' } } }],
    });
  });

  it('keeps the final answer raw, for Python-literal scoring', () => {
    const content = 'Done.\nAction: Answer\nFinal Answer: ["a", 1.0]';
    expect(dbbenchTextCodec.decode({ role: 'assistant', content }, [])).toEqual({
      ok: true,
      actions: [{ action: { tool: 'commit_final_answer', arguments: { answer_text: ' ["a", 1.0]' } } }],
    });
  });

  it('reports messages without a valid action', () => {
    for (const content of ['Just thinking.', 'Action: Operation\nSELECT 1', 'Action: Answer\nno answer line']) {
      expect(dbbenchTextCodec.decode({ role: 'assistant', content }, [])).toMatchObject({ ok: false });
    }
  });

  it('encodes what it decodes', () => {
    const actions = [{ tool: 'commit_final_answer', arguments: { answers: ['x', null, true] } }];
    const message = dbbenchTextCodec.encode(actions);
    expect(message.content).toBe('Action: Answer\nFinal Answer: ["x", None, True]');
    const query = [{ tool: 'execute_sql', arguments: { query: 'SELECT 1' } }];
    expect(dbbenchTextCodec.decode(dbbenchTextCodec.encode(query, 'x'), [])).toEqual({
      ok: true,
      actions: [{ action: query[0] }],
    });
    // A raw answer read from a reply, written back, reads the same.
    for (const text of [' ["a", 1.0]', '[1]', '']) {
      const raw = { tool: 'commit_final_answer', arguments: { answer_text: text } };
      expect(dbbenchTextCodec.decode(dbbenchTextCodec.encode([raw]), [])).toEqual({
        ok: true,
        actions: [{ action: raw }],
      });
    }
  });

  it('re-renders a turn with several actions as one reply per action, each answered in turn', () => {
    const h0 = createHarness(dbbenchH0('dbbench-text'));
    const actions = [
      { tool: 'execute_sql', arguments: { query: "INSERT INTO t VALUES ('a')" } },
      { tool: 'execute_sql', arguments: { query: 'SELECT * FROM t' } },
    ];
    const turn = {
      index: 0,
      response: { content: '', toolCalls: [{ id: 'c', name: 'execute_sql', arguments: '{}' }] },
      usage: { promptTokens: 1, completionTokens: 1 },
      latencyMs: 1,
      actions: actions.map((action, index) => ({ action, result: result(`out ${index}`), latencyMs: 1 })),
    };
    const messages = rerenderTrajectory({ turns: [turn] } as unknown as Trajectory, task, h0);
    const replies = messages.filter((message) => message.role === 'assistant');
    expect(replies.map((reply) => h0.codec.decode(reply, []))).toEqual(
      actions.map((action) => ({ ok: true, actions: [{ action }] })),
    );
    expect(messages.slice(-3).map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages.at(-1)?.content).toContain('out 1');
    expect(messages.at(-3)?.content).toContain('out 0');
  });

  it('re-renders under tool calls with call ids unique across the conversation, each answered by its own', () => {
    const h0 = createHarness(dbbenchH0());
    const turn = (index: number, queries: string[]) => ({
      index,
      response: { content: '', toolCalls: [{ id: `server-${index}`, name: 'execute_sql', arguments: '{}' }] },
      usage: { promptTokens: 1, completionTokens: 1 },
      latencyMs: 1,
      actions: queries.map((query) => ({
        action: { tool: 'execute_sql', arguments: { query } },
        result: result(query),
        latencyMs: 1,
      })),
    });
    const messages = rerenderTrajectory(
      { turns: [turn(0, ['SELECT 1', 'SELECT 2']), turn(1, ['SELECT 3'])] } as unknown as Trajectory,
      task,
      h0,
    );
    const ids = messages.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []).map((call) => call.id) : [],
    );
    expect(ids).toEqual(['call_0', 'call_1', 'call_2']);
    const answered = messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : []));
    expect(answered).toEqual(ids);
  });
});

describe('createHarness', () => {
  it('cuts observations at 800 characters plus [TRUNCATED], as AgentBench does', () => {
    const harness = createHarness(dbbenchH0());
    const [message] = harness.observe([
      { action: { tool: 'execute_sql', arguments: {} }, callId: 'c1', result: result('x'.repeat(1000)) },
    ]);
    expect(message).toEqual({ role: 'tool', toolCallId: 'c1', content: `${'x'.repeat(800)}[TRUNCATED]` });
    const short = harness.observe([{ action: { tool: 'execute_sql', arguments: {} }, result: result('[(1,)]') }]);
    expect(short[0]?.content).toBe('[(1,)]');
  });

  it('answers the text protocol with one user message', () => {
    const harness = createHarness(dbbenchH0('dbbench-text'));
    expect(harness.observe([{ action: { tool: 'execute_sql', arguments: {} }, result: result('[]') }])).toEqual([
      { role: 'user', content: '[]' },
    ]);
    expect(harness.spec.id).toBe('h0-text');
  });

  it('renders directives into the system prompt and the instruction into the task', () => {
    const spec = dbbenchH0();
    spec.prompt.directives.push({
      id: 'look',
      text: 'Look at the table first.',
      direction: 'grounding',
      skill: 'inspect-table',
    });
    const [system, user] = createHarness(spec).start(task, []);
    expect(system?.content).toContain('Rules:\n- Look at the table first.');
    expect(user).toEqual({ role: 'user', content: 'How many rows?' });
  });

  it('keeps only the last N observations in what the policy sees, and all of them in the transcript', () => {
    const spec = dbbenchH0();
    spec.context.keepLastObservations = 1;
    const harness = createHarness(spec);
    const transcript = [
      ...harness.start(task, []),
      { role: 'assistant' as const, content: 'a' },
      { role: 'user' as const, content: 'first' },
      { role: 'assistant' as const, content: 'b' },
      { role: 'user' as const, content: 'second' },
    ];
    const rendered = harness.render(transcript);
    expect(rendered.map((message) => message.content).slice(1)).toEqual([
      'How many rows?',
      'a',
      elidedObservation,
      'b',
      'second',
    ]);
    expect(transcript[3]?.content).toBe('first');
  });

  it('rejects a bad spec with the field that is wrong', () => {
    const spec = { ...dbbenchH0(), execution: { maxSteps: 0, maxFormatErrors: 3 } };
    expect(() => createHarness(spec, 'my.json')).toThrow(/my\.json: execution\.maxSteps/);
    expect(() => createHarness({ ...dbbenchH0(), codec: { kind: 'smoke-signals' } }, 'my.json')).toThrow(
      /^my\.json: codec\.kind: unknown action codec 'smoke-signals'/,
    );
    expect(() => createHarness({ ...dbbenchH0(), tools: [{ kind: 'paginate', options: {} }] }, 'my.json')).toThrow(
      /^my\.json: tools\.0\.kind: unknown tool transform 'paginate'/,
    );
    expect(() => createHarness({ ...dbbenchH0(), extra: 1 })).toThrow(ConfigError);
    // What builtInHarnessSpec gives for a name the environment has not.
    expect(() => createHarness(undefined)).toThrow(/harness spec: no spec given \(undefined\); builtInHarnessSpec/);
  });
});

describe('resolveHarness', () => {
  it('finds built-ins, loads spec files and names what is wrong with bad ones', async () => {
    expect((await resolveHarness('dbbench', 'h0')).spec.codec.kind).toBe('tool-calls');
    await expect(resolveHarness('dbbench', 'h9')).rejects.toThrow(/unknown harness 'h9'.*h0, h0-text/);

    const dir = await mkdtemp(join(tmpdir(), 'spec-'));
    const good = join(dir, 'variant.json');
    await writeFile(good, JSON.stringify({ ...dbbenchH0(), id: 'v1' }));
    expect((await resolveHarness('dbbench', good)).spec.id).toBe('v1');

    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ ...dbbenchH0(), context: { maxObservationChars: 'lots' } }));
    const error = await resolveHarness('dbbench', bad).catch((caught: unknown) => caught);
    expect(HarnessError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/bad\.json: context\.maxObservationChars/);

    const notJson = join(dir, 'broken.json');
    await writeFile(notJson, '{ nope');
    await expect(resolveHarness('dbbench', notJson)).rejects.toThrow(/broken\.json: not valid JSON/);

    const other = join(dir, 'other.json');
    await writeFile(other, JSON.stringify({ ...dbbenchH0(), env: 'appworld' }));
    await expect(resolveHarness('dbbench', other)).rejects.toThrow(/env is 'appworld' but --env is 'dbbench'/);
  });
});
