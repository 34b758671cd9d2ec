import type { Action, Check, Trajectory } from '@harness-s/core';
import { describe, expect, it } from 'vitest';
import { appworldExtras, comparedLists, pagingHelper } from './extras-appworld.js';
import { swegymExtras } from './extras-swegym.js';

type Step = { action: Action; observation?: string; error?: boolean };

function trajectory(steps: Step[], checks: Check[]): Trajectory {
  return {
    id: 't#h0#0',
    taskId: 't',
    turns: steps.map((step, index) => ({
      index,
      response: { content: '' },
      usage: { promptTokens: 0, completionTokens: 0 },
      latencyMs: 0,
      actions: [
        {
          action: step.action,
          result: {
            observation: step.observation ?? '',
            done: false,
            ...(step.error ? { error: { kind: 'exception', message: 'failed' } } : {}),
          },
          latencyMs: 0,
        },
      ],
    })),
    stopReason: 'done',
    evaluation: { reward: 0, success: false, checks, details: {} },
  } as unknown as Trajectory;
}

const bash = (command: string, observation = ''): Step => ({
  action: { tool: 'bash', arguments: { command } },
  observation,
});
const execute = (code: string, observation = '', error = false): Step => ({
  action: { tool: 'execute', arguments: { code } },
  observation,
  error,
});
const kinds = (signals: Array<{ kind: string; skill?: string }>) =>
  signals.map((signal) => `${signal.kind}/${signal.skill}`);

describe('SWE-Gym failure signals', () => {
  const edit = "python3 - <<'PYEDIT'\nprint(1)\nPYEDIT";
  it('reads an unreproduced, untested fix and collateral damage', () => {
    const signals = swegymExtras.failureSignals?.(
      trajectory(
        [bash('cat src/a.py'), bash(edit)],
        [
          { name: 'FAIL_TO_PASS', passed: false, detail: '0/2 pass; failing: a, b' },
          { name: 'PASS_TO_PASS', passed: false, detail: '3/4 pass; failing: c' },
        ],
      ),
    );
    expect(kinds(signals ?? [])).toEqual([
      'no-reproduction/reproduce-first',
      'untested-submit/run-tests-before-submit',
      'collateral-damage/check-diff-before-submit',
    ]);
  });

  it('reads a partial fix, and a submit after tests that reported failures', () => {
    const signals = swegymExtras.failureSignals?.(
      trajectory(
        [bash('python3 -m repro'), bash(edit), bash('python3 -m unittest', 'FAILED (failures=1)')],
        [{ name: 'FAIL_TO_PASS', passed: false, detail: '1/2 pass; failing: b' }],
      ),
    );
    expect(kinds(signals ?? [])).toEqual([
      'partial-fix/fix-all-call-sites',
      'submitted-despite-failing-tests/recover-from-error',
    ]);
    expect(swegymExtras.changesState?.({ tool: 'bash', arguments: { command: edit } })).toBe(true);
    expect(swegymExtras.changesState?.({ tool: 'bash', arguments: { command: 'git diff' } })).toBe(false);
  });
});

describe('AppWorld extras', () => {
  it('prints the documentation of every app API a block calls before running it', () => {
    const transform = appworldExtras.transforms[0];
    const block: Action = {
      tool: 'execute',
      arguments: {
        code: 'var t = apis.music.login({}); var s = apis.music.show_songs({}); apis.supervisor.complete_task({});',
      },
    };
    expect(transform?.expand?.(block, {})).toEqual([
      {
        tool: 'execute',
        arguments: { code: "print(apis.api_docs.show_api_doc({ app_name: 'music', api_name: 'show_songs' }));" },
      },
      block,
    ]);
    expect(transform?.expand?.({ tool: 'execute', arguments: { code: 'print(1);' } }, {})).toBeNull();
  });

  it('sends every app API call of a block through the paging helper, on the same lines', () => {
    const transform = appworldExtras.transforms.find((item) => item.kind === 'list-paging');
    expect(transform).toMatchObject({ skill: 'fetch-all-pages', direction: 'pagination', rewrites: true });
    const code = [
      "print(apis.api_docs.show_api_doc({ app_name: 'music', api_name: 'show_songs' }));",
      'var songs = apis.music.show_songs({ access_token: t });',
      'print(songs.length);',
    ].join('\n');
    const [rewritten, ...rest] = transform?.expand?.({ tool: 'execute', arguments: { code } }, {}) ?? [];
    expect(rest).toEqual([]);
    const lines = String(rewritten?.arguments['code']).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^var ${pagingHelper} = .*; print\\(apis\\.api_docs\\.show_api_doc\\(`));
    expect(lines[1]).toBe(`var songs = ${pagingHelper}('music', 'show_songs')({ access_token: t });`);
    expect(lines[2]).toBe('print(songs.length);');
    for (const unchanged of ['print(1);', 'print(apis.api_docs.show_app_descriptions());'])
      expect(transform?.expand?.({ tool: 'execute', arguments: { code: unchanged } }, {})).toBeNull();
  });

  it('reads guessed passwords and parameters, giving up, first pages and unfinished flows', () => {
    const guessed = trajectory(
      [
        execute("apis.music.login({ password: 'x' });", 'Response status code is 401', true),
        execute('apis.music.show_songs({ token: t });', 'Response status code is 422: unexpected parameter', true),
        execute("apis.supervisor.complete_task({ status: 'fail' });"),
      ],
      [{ name: 'answer', passed: false, detail: 'expected 3, got null (no answer)' }],
    );
    expect(kinds(appworldExtras.failureSignals?.(guessed) ?? [])).toEqual([
      'guessed-credentials/ask-supervisor',
      'skipped-api-doc/lookup-api-doc',
      'gave-up-after-error/recover-from-error',
    ]);
    const firstPage = trajectory(
      [execute('var songs = apis.music.show_songs({ access_token: t });')],
      [
        { name: 'answer', passed: false, detail: 'expected 7, got 5' },
        { name: 'password-reset', passed: false, detail: 'not reset' },
      ],
    );
    expect(kinds(appworldExtras.failureSignals?.(firstPage) ?? [])).toEqual([
      'first-page-only/fetch-all-pages',
      'unfinished-account-flow/finish-account-flow',
    ]);
    const union = trajectory(
      [execute('apis.notes.show_notes({ page_index: 1 });')],
      [{ name: 'answer', passed: false, detail: 'expected 2, got 4' }],
    );
    expect(kinds(appworldExtras.failureSignals?.(union) ?? [])).toEqual([
      'union-instead-of-intersection/intersect-not-union',
    ]);
  });

  it('reads a union and a missed page from checks that compare lists', () => {
    expect(comparedLists('expected songs 3,5, found 3,5,8')).toEqual({ expected: ['3', '5'], actual: ['3', '5', '8'] });
    expect(comparedLists('expected Ann | Bo; found Ann')).toEqual({ expected: ['Ann', 'Bo'], actual: ['Ann'] });
    expect(comparedLists('expected 2,4, ordered none')).toEqual({ expected: ['2', '4'], actual: [] });
    expect(comparedLists('3 new order(s)')).toBeNull();
    const block = [execute('var liked = apis.music.show_liked_songs({ access_token: t });')];
    const signal = (detail: string) =>
      kinds(
        appworldExtras.failureSignals?.(trajectory(block, [{ name: 'playlist-songs', passed: false, detail }])) ?? [],
      );
    expect(signal('expected songs 3,5, found 3,5,8')).toEqual(['union-instead-of-intersection/intersect-not-union']);
    expect(signal('expected songs 3,5,8, found 3,5')).toEqual(['first-page-only/fetch-all-pages']);
    // Other songs than the ones asked for: neither a union nor a missed page.
    expect(signal('expected songs 3,5, found 4,6,7')).toEqual([]);
  });
});
