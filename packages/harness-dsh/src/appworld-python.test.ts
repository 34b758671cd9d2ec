import { execFileSync } from 'node:child_process';
import type { Action, SkillDescription, Trajectory } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { appworldTask } from './__fixtures__/appworld-task.js';
import { appworldH0 } from './appworld.js';
import { createCodec } from './codecs/index.js';
import { createHarness } from './harness.js';
import { builtInHarnesses, resolveHarness } from './registry.js';
import { environmentExtras, registerEnvironmentExtras } from './variants/extras.js';
import { appworldExtras } from './variants/extras-appworld.js';
import { proposeChanges } from './variants/operators.js';
import { deriveVariant } from './variants/patch.js';

const task = appworldTask;

/** A spec deriving from `base` by one tool transform. */
function withTransform(base: ReturnType<typeof appworldH0>, kind: string, skill: string) {
  return deriveVariant(base, base, {
    operator: 'tool-transform',
    direction: 'test',
    description: kind,
    operations: [{ op: 'add-tool-transform', transform: { kind, options: {}, skill } }],
  });
}

describe('H0 for AppWorld in Python (the real server)', () => {
  it('is a built-in harness whose prompt, example and rules are written for Python', async () => {
    expect(builtInHarnesses('appworld')).toEqual(
      expect.arrayContaining(['h0-python', 'h0-python-tools', 'minimal-python']),
    );
    const harness = await resolveHarness('appworld', 'h0-python');
    expect(harness.spec).toMatchObject({
      id: 'h0-python',
      parent: null,
      codec: { kind: 'code-block', options: { language: 'python' } },
      execution: { maxSteps: 50 },
    });
    const [system, user] = harness.start(task, []);
    const prompt = system?.content ?? '';
    expect(prompt).toContain('using a Python REPL');
    expect(prompt).toContain("print(apis.api_docs.show_api_doc(app_name='music', api_name='login'))");
    expect(prompt).toContain('apis.supervisor.complete_task(answer=3)');
    expect(prompt).toContain("apis.supervisor.complete_task(status='fail')");
    // Nothing of the JavaScript prompt is left in it.
    for (const javascript of ['JavaScript', '```js', '({', 'var ', '//']) expect(prompt).not.toContain(javascript);
    expect(user?.content).toBe(task.instruction);
  });

  it('has a minimal family in Python, outside H0 lineage, whose prompt and codec are Python', async () => {
    const harness = await resolveHarness('appworld', 'minimal-python');
    expect(harness.spec).toMatchObject({
      id: 'minimal-python',
      family: 'minimal',
      parent: null,
      codec: { kind: 'code-block', options: { language: 'python' } },
      context: { keepLastObservations: 8 },
    });
    const prompt = harness.start(task, [])[0]?.content ?? '';
    expect(prompt).toContain('writing Python code');
    expect(prompt).toContain('```python');
    for (const javascript of ['JavaScript', '```js', '({']) expect(prompt).not.toContain(javascript);
    expect(appworldExtras.codeLanguage?.(harness.spec)).toBe('python');
    const action: Action = { tool: 'execute', arguments: { code: 'print(apis.api_docs.show_app_descriptions())' } };
    expect(harness.codec.encode([action]).content).toContain('```python\n');
    expect(harness.codec.decode(harness.codec.encode([action]), [])).toMatchObject({ ok: true, actions: [{ action }] });
  });

  it('has a tool-calls H0 in Python too, whose code language its codec options name', async () => {
    const harness = await resolveHarness('appworld', 'h0-python-tools');
    expect(harness.spec).toEqual(appworldH0('tool-calls', 'python'));
    expect(harness.spec.codec).toEqual({ kind: 'tool-calls', options: { language: 'python' } });
    const prompt = harness.start(task, [])[0]?.content ?? '';
    expect(prompt).toContain('using a Python REPL');
    expect(prompt).toContain('one small piece of Python code per call');
    expect(prompt).not.toContain('JavaScript');
    expect(appworldExtras.codeLanguage?.(harness.spec)).toBe('python');
    expect(appworldExtras.codeLanguage?.((await resolveHarness('appworld', 'h0-tools')).spec)).toBe('javascript');
    // The calls are the same whatever the language; a language the codec does not know is refused.
    const action: Action = { tool: 'execute', arguments: { code: 'print(1)' } };
    expect(harness.codec.decode(harness.codec.encode([action]), [])).toMatchObject({ ok: true, actions: [{ action }] });
    expect(() => createCodec({ kind: 'tool-calls', options: { language: 'ruby' } })).toThrow(
      /codec\.options\.language/,
    );
    expect(() => createCodec({ kind: 'tool-calls', options: { fence: 'py' } })).toThrow(/codec\.options/);
  });

  it('writes and asks for python fences; the JavaScript codec stays as it was', () => {
    const python = createCodec({ kind: 'code-block', options: { language: 'python' } });
    const action: Action = { tool: 'execute', arguments: { code: 'print(1)' } };
    expect(python.encode([action], 'Go.').content).toBe('Go.\n\n```python\nprint(1)\n```');
    expect(python.decode({ role: 'assistant', content: 'no code' }, [])).toMatchObject({
      ok: false,
      error: expect.stringContaining('fenced as ```python'),
    });
    const javascript = createCodec({ kind: 'code-block' });
    expect(javascript.encode([action]).content).toBe('```js\nprint(1)\n```');
    expect(() => createCodec({ kind: 'code-block', options: { language: 'ruby' } })).toThrow(
      /codec\.options\.language/,
    );
    expect(() => createCodec({ kind: 'code-block', options: { fence: 'py' } })).toThrow(/codec\.options/);
  });

  it('gets the documentation lookup in Python, and list paging through a helper its prelude defines', () => {
    const base = appworldH0('code-block', 'python');
    const extras = environmentExtras('appworld');
    expect(extras.codeLanguage?.(base)).toBe('python');
    expect(extras.codeLanguage?.(appworldH0())).toBe('javascript');
    const skills: SkillDescription[] = [
      { name: 'fetch-all-pages', description: 'read every page' },
      { name: 'lookup-api-doc', description: 'read the doc first' },
    ];
    const direction = (name: string, skill: string) => ({ name, skills: [skill], causes: [], tasks: [] });
    const proposed = (parent: typeof base, name: string, skill: string) =>
      proposeChanges(parent, direction(name, skill), { skills, extras })
        .flatMap((change) => change.operations)
        .flatMap((operation) => (operation.op === 'add-tool-transform' ? [operation.transform.kind] : []));
    expect(proposed(appworldH0(), 'pagination', 'fetch-all-pages')).toEqual(['list-paging']);
    expect(proposed(base, 'pagination', 'fetch-all-pages')).toEqual(['list-paging']);
    expect(proposed(base, 'api-grounding', 'lookup-api-doc')).toEqual(['api-doc-lookup']);

    const lookup = createHarness(withTransform(base, 'api-doc-lookup', 'lookup-api-doc'));
    const code = 'songs = apis.music.show_songs(access_token=token)\nprint(len(songs))';
    const decoded = lookup.codec.decode({ role: 'assistant', content: `\`\`\`python\n${code}\n\`\`\`` }, []);
    expect(decoded).toEqual({
      ok: true,
      actions: [
        {
          action: {
            tool: 'execute',
            arguments: { code: "print(apis.api_docs.show_api_doc(app_name='music', api_name='show_songs'))" },
          },
        },
        { action: { tool: 'execute', arguments: { code } } },
      ],
    });
  });

  it('pages lists in Python: run by python3 against a stand-in of the apis object', () => {
    const paging = createHarness(withTransform(appworldH0('code-block', 'python'), 'list-paging', 'fetch-all-pages'));
    const prelude = paging.prelude?.(task, []);
    expect(prelude?.actions).toHaveLength(1);
    const definition = String(prelude?.actions[0]?.action.arguments['code']);
    const policyCode = [
      'songs = apis.music.show_songs(access_token=token)',
      'first = apis.music.show_songs(access_token=token, page_index=1, page_limit=5)',
      'song = apis.music.show_song(song_id=3)',
      "print(json.dumps({'songs': len(songs), 'first': first, 'song': song, 'docs': docs}))",
    ].join('\n');
    const decoded = paging.codec.decode({ role: 'assistant', content: `\`\`\`python\n${policyCode}\n\`\`\`` }, []);
    if (!decoded.ok) throw new Error(decoded.error);
    const [rewritten] = decoded.actions.map((item) => String(item.action.arguments['code']));
    // Four lines still: a traceback points at the policy's own line.
    expect(rewritten?.split('\n')).toHaveLength(4);
    expect(rewritten).toContain(
      "__harness_all_pages(apis.music.show_songs, 'music', 'show_songs')(access_token=token)",
    );
    // The stand-in: 47 songs served 20 a page at most, a song by id, and documentation that says
    // which API pages; it counts documentation lookups.
    const standIn = [
      'import json',
      'docs = []',
      'class Music:',
      '    def show_songs(self, access_token, page_index=0, page_limit=5):',
      '        return list(range(47))[page_index * page_limit:(page_index + 1) * min(page_limit, 20)]',
      '    def show_song(self, song_id):',
      "        return {'song_id': song_id}",
      'class Docs:',
      '    def show_api_doc(self, app_name, api_name):',
      '        docs.append(api_name)',
      "        names = ['access_token', 'page_index', 'page_limit'] if api_name == 'show_songs' else ['song_id']",
      "        return {'parameters': [{'name': name} for name in names]}",
      'class Apis:',
      '    music = Music()',
      '    api_docs = Docs()',
      'apis = Apis()',
      "token = 't'",
    ].join('\n');
    const output = execFileSync('python3', ['-c', [standIn, definition, rewritten].join('\n')], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(JSON.parse(output)).toEqual({
      songs: 47,
      first: [5, 6, 7, 8, 9],
      song: { song_id: 3 },
      docs: ['show_songs', 'show_song'],
    });
  });

  it('reads Python code in failure signals: documented APIs, giving up, first pages', () => {
    const turn = (code: string, error: string | null, index: number) => ({
      index,
      response: { content: '' },
      usage: { promptTokens: 0, completionTokens: 0 },
      latencyMs: 0,
      actions: [
        {
          action: { tool: 'execute', arguments: { code } },
          result: {
            observation: error ?? '',
            done: false,
            ...(error ? { error: { kind: 'exception', message: error } } : {}),
          },
          latencyMs: 0,
        },
      ],
    });
    const signals = (codes: Array<[string, string | null]>, detail: string) =>
      appworldExtras
        .failureSignals?.({
          id: 't#h0-python#0',
          taskId: 't',
          turns: codes.map(([code, error], index) => turn(code, error, index)),
          stopReason: 'done',
          evaluation: { reward: 0, success: false, checks: [{ name: 'answer', passed: false, detail }], details: {} },
        } as unknown as Trajectory)
        .map((signal) => signal.kind) ?? [];
    const documented = "print(apis.api_docs.show_api_doc(app_name='music', api_name='show_songs'))";
    const call = 'songs = apis.music.show_songs(token=t)';
    const unexpected = 'Response status code is 422: unexpected parameter';
    expect(signals([[call, unexpected]], 'expected 3, got null')).toContain('skipped-api-doc');
    expect(
      signals(
        [
          [documented, null],
          [call, unexpected],
        ],
        'expected 3, got null',
      ),
    ).not.toContain('skipped-api-doc');
    expect(
      signals(
        [
          [call, unexpected],
          ["apis.supervisor.complete_task(status='fail')", null],
        ],
        'x',
      ),
    ).toContain('gave-up-after-error');
    expect(signals([['songs = apis.music.show_songs(access_token=t)', null]], 'expected 7, got 5')).toEqual([
      'first-page-only',
    ]);
  });

  it('keeps a transform out of a harness in a language it does not work in', () => {
    // An environment whose one transform writes JavaScript only.
    registerEnvironmentExtras({
      env: 'js-only',
      transforms: [
        { kind: 'js-helper', direction: 'paging', description: 'd', note: 'n', emits: [], languages: ['javascript'] },
      ],
      codeLanguage: (spec) => environmentExtras('appworld').codeLanguage?.(spec),
    });
    const python = { ...appworldH0('code-block', 'python'), env: 'js-only' };
    const javascript = { ...appworldH0(), env: 'js-only' };
    const context = { skills: [], extras: environmentExtras('js-only') };
    const direction = { name: 'paging', skills: [], causes: [], tasks: [] };
    expect(proposeChanges(javascript, direction, context).map((change) => change.operator)).toContain('tool-transform');
    expect(proposeChanges(python, direction, context).map((change) => change.operator)).not.toContain('tool-transform');
    const tools = [{ kind: 'js-helper', options: {} }];
    expect(() => createHarness({ ...javascript, tools })).not.toThrow();
    expect(() => createHarness({ ...python, tools })).toThrow(
      /tools\.0\.kind: transform 'js-helper' works in javascript code, not in python \(harness h0-python\)/,
    );
  });
});
