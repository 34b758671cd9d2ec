import { type Action, rightPath, type Trajectory } from '@harness-s/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppWorldEnvironment } from '../environment.js';
import { goalCompletion, goalCompletionLines } from '../goal-completion.js';
import { runActions } from '../plan-runner.js';
import { SandboxWorkerPool } from '../sandbox/worker-pool.js';
import type { AppWorldTask } from '../tasks/types.js';
import { compareAnswer } from './answers.js';

const pool = new SandboxWorkerPool(2);
const environment = createAppWorldEnvironment({ pool });
afterAll(() => environment.close());

const taskOf = (scenario: string): AppWorldTask => {
  const found = environment.world.tasks.find((item) => item.task.tags[0] === scenario && item.task.variant === 1);
  if (!found) throw new Error(`no task of ${scenario}`);
  return found.task;
};

/** The oracle's actions with extra code run just before the final complete_task. */
function oracleWith(task: AppWorldTask, extra: string): Action[] {
  const actions = rightPath(environment.oraclePlan(task).nodes);
  return [...actions.slice(0, -1), { tool: 'execute', arguments: { code: extra } }, ...actions.slice(-1)];
}

/** Code that logs in to an app into `<app>Token`, with the supervisor app's password. */
const loginCode = (app: string, username: string): string =>
  `var ${app}Password = apis.supervisor.show_account_passwords().find((a) => a.account_name === '${app}').password;\nvar ${app}Token = apis.${app}.login({ username: '${username}', password: ${app}Password }).access_token;`;

describe('state-based checks', () => {
  it('fail a solved task when anything else changed, in any app, for anyone', async () => {
    const task = taskOf('liked-library-playlist');
    const { evaluation: clean } = await runActions(environment, task, rightPath(environment.oraclePlan(task).nodes));
    expect(clean.success).toBe(true);
    const { email, phone_number } = task.supervisor;
    const state = environment.world.openState(task.id);
    const stranger = state
      .prepare('SELECT phone_number FROM people WHERE email <> ? ORDER BY id LIMIT 1')
      .get(email) as { phone_number: string };
    state.close();
    const extras = [
      // One more like in the same app.
      'apis.music.like_song({ access_token: musicToken, song_id: 7 });',
      // A note in another app.
      `${loginCode('notes', email)}\napis.notes.create_note({ access_token: notesToken, title: 'stray' });`,
      // A text message, which lands in another person's phone too.
      `${loginCode('phone', phone_number)}\napis.phone.send_text_message({ access_token: phoneToken, phone_number: '${stranger.phone_number}', message: 'hi' });`,
    ];
    for (const extra of extras) {
      const { evaluation, results } = await runActions(environment, task, oracleWith(task, extra));
      expect(results.every((result) => result.error === undefined)).toBe(true);
      expect(evaluation.success).toBe(false);
      const collateral = evaluation.checks.find((check) => check.name === 'no-collateral-damage');
      expect(collateral?.passed).toBe(false);
      // Everything the task asked for still passed: only the extra change fails it.
      expect(
        evaluation.checks.filter((check) => check.name !== 'no-collateral-damage').every((check) => check.passed),
      ).toBe(true);
    }
  });

  it('ignore logins, reset-code messages and reads, which are not damage', async () => {
    const task = taskOf('count-artist-library');
    const email = task.supervisor.email;
    const extra = [
      loginCode('files', email),
      `apis.shop.send_password_reset_code({ email: '${email}' });`,
      'apis.music.show_playlists({ access_token: musicToken });',
    ].join('\n');
    const { evaluation } = await runActions(environment, task, oracleWith(task, extra));
    expect(evaluation.success).toBe(true);
  });
});

describe('answers', () => {
  it('compare numbers within a cent, text without case or spaces, lists in any order', () => {
    expect(compareAnswer(12.5, '12.50').passed).toBe(true);
    expect(compareAnswer(12.5, 12.52).passed).toBe(false);
    expect(compareAnswer('Quiet Choir', ' quiet  choir ').passed).toBe(true);
    expect(compareAnswer(['B', 'a'], ['A', 'b']).passed).toBe(true);
    expect(compareAnswer(['B', 'a'], 'a, b').passed).toBe(true);
    expect(compareAnswer(['B', 'a'], ['a']).passed).toBe(false);
    expect(compareAnswer(3, null).passed).toBe(false);
  });
});

describe('TGC and SGC', () => {
  it('count tasks and whole scenarios solved per attempt run', () => {
    const tasks = [
      { id: 'aaaaaaa_1', scenarioId: 'aaaaaaa' },
      { id: 'aaaaaaa_2', scenarioId: 'aaaaaaa' },
      { id: 'bbbbbbb_1', scenarioId: 'bbbbbbb' },
    ] as AppWorldTask[];
    const run = (taskId: string, attempt: number, success: boolean) =>
      ({
        taskId,
        attempt,
        stopReason: 'done',
        evaluation: { success, reward: success ? 1 : 0, checks: [], details: {} },
      }) as unknown as Trajectory;
    const metrics = goalCompletion(
      [
        run('aaaaaaa_1', 0, true),
        run('aaaaaaa_2', 0, true),
        run('bbbbbbb_1', 0, false),
        run('aaaaaaa_1', 1, true),
        run('aaaaaaa_2', 1, false),
        run('bbbbbbb_1', 1, true),
      ],
      tasks,
    );
    expect(metrics.tgc).toBeCloseTo((2 / 3 + 2 / 3) / 2);
    expect(metrics.sgc).toBeCloseTo((1 / 2 + 1 / 2) / 2);
    expect(metrics.sgcAnyAttempt).toBe(1);
    expect(metrics).toMatchObject({ scenarios: 2, runs: 2 });
    expect(goalCompletionLines({ appworld: metrics })).toEqual([
      'AppWorld TGC 66.67% | SGC 50.00% (mean over 2 attempt runs; SGC with any attempt 100.00%)',
    ]);
    expect(goalCompletionLines({})).toEqual([]);
  });
});
