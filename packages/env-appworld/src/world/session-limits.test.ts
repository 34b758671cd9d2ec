import { afterAll, describe, expect, it } from 'vitest';
import { ApiError } from '../api/definition.js';
import { maxListItems, maxStringChars } from '../api/validate.js';
import { createAppWorldEnvironment } from '../environment.js';
import { SandboxWorkerPool } from '../sandbox/worker-pool.js';
import { generateWorld } from './generate.js';
import { WorldSession } from './session.js';

const megabyte = 1024 * 1024;

/** The status and message of the ApiError a call throws. */
function failure(work: () => unknown): { status: number; message: string } {
  try {
    work();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, message: error.message };
    throw error;
  }
  throw new Error('the call did not fail');
}

/** A session on a fresh world whose writes may add `maxStoredBytes`, logged in to the files and notes apps. */
function loggedIn(maxStoredBytes: number) {
  const db = generateWorld(100);
  const world = new WorldSession(db, { supervisorId: 1, now: '2024-06-14T10:00:00', seed: 7 }, maxStoredBytes);
  const passwords = world.call('supervisor', 'show_account_passwords', {}) as Array<{
    account_name: string;
    password: string;
  }>;
  const { email } = world.call('supervisor', 'show_profile', {}) as { email: string };
  const token = (app: string) =>
    (
      world.call(app, 'login', {
        username: email,
        password: passwords.find((item) => item.account_name === app)?.password,
      }) as { access_token: string }
    ).access_token;
  return { db, world, files: token('files'), notes: token('notes') };
}

describe('world session: what one episode may store', () => {
  it('refuses strings and lists over the size limits before any handler runs', () => {
    const { db, world, files, notes } = loggedIn(megabyte);
    const content = 'x'.repeat(maxStringChars + 1);
    expect(
      failure(() => world.call('files', 'create_file', { access_token: files, path: '/big.txt', content })),
    ).toEqual({
      status: 422,
      message: `Validation error: parameter 'content' must have length <= ${maxStringChars}, got ${maxStringChars + 1}.`,
    });
    const tags = Array.from({ length: maxListItems + 1 }, () => 'tag');
    expect(
      failure(() => world.call('notes', 'create_note', { access_token: notes, title: 'many', tags })).message,
    ).toBe(`Validation error: parameter 'tags' must have length <= ${maxListItems}, got ${maxListItems + 1}.`);
    expect(
      failure(() => world.call('notes', 'create_note', { access_token: notes, title: 'long', tags: ['ok', content] }))
        .message,
    ).toBe(`Validation error: item 1 of parameter 'tags' must have length <= ${maxStringChars}.`);
    expect(world.storedBytes).toBe(0);
    db.close();
  });

  it('fails the write that would go past the storage limit with 507 and changes nothing; freed room is reused', () => {
    const { db, world, files } = loggedIn(megabyte);
    const content = 'y'.repeat(maxStringChars);
    const create = (path: string) => world.call('files', 'create_file', { access_token: files, path, content });
    let written = 0;
    let refused: { status: number; message: string } | null = null;
    while (!refused && written < 100) {
      const path = `/file-${written}.txt`;
      try {
        create(path);
        written += 1;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        refused = { status: error.status, message: error.message };
      }
    }
    expect(refused).toEqual({
      status: 507,
      message:
        'Storage limit reached: an episode may add at most 1 MB of data, and this call would go past it; nothing was changed.',
    });
    expect(written).toBeGreaterThanOrEqual(8);
    expect(world.storedBytes).toBeLessThanOrEqual(megabyte);
    expect(
      failure(() => world.call('files', 'show_file', { access_token: files, path: `/file-${written}.txt` })).status,
    ).toBe(404);
    world.call('files', 'delete_file', { access_token: files, path: '/file-0.txt' });
    create('/file-0.txt');
    db.close();
  });
});

describe('an episode: API writes from code blocks', () => {
  const pool = new SandboxWorkerPool(1);
  const environment = createAppWorldEnvironment({ pool, maxStoredBytes: 2 * megabyte });
  afterAll(async () => {
    await environment.close();
  });

  it('answers each oversized or storage-filling write with an error observation, and keeps scoring the attempt', async () => {
    const task = environment.world.tasks.find((item) => item.task.split === 'dev')?.task;
    if (!task) throw new Error('no dev task');
    const episode = await environment.open(task);
    try {
      const login = [
        'var email = apis.supervisor.show_profile({}).email;',
        "var password = apis.supervisor.show_account_passwords({}).find((item) => item.account_name === 'files').password;",
        'var token = apis.files.login({ username: email, password: password }).access_token;',
      ].join('\n');
      expect((await episode.step({ tool: 'execute', arguments: { code: login } })).observation).toBe(
        'Execution successful.',
      );
      const huge =
        "apis.files.create_file({ access_token: token, path: '/huge.txt', content: 'z'.repeat(3 * 1024 * 1024) });";
      const hugeStep = await episode.step({ tool: 'execute', arguments: { code: huge } });
      expect(hugeStep.observation).toMatch(/at most 1000000 are accepted\.$/);
      expect(hugeStep.error?.kind).toBe('exception');
      const fill = [
        'for (var i = 0; i < 100; i += 1) {',
        "  apis.files.create_file({ access_token: token, path: '/fill-' + i + '.txt', content: 'z'.repeat(100000) });",
        '}',
      ].join('\n');
      const fillStep = await episode.step({ tool: 'execute', arguments: { code: fill } });
      expect(fillStep.observation).toMatch(/Exception: Response status code is 507: .*Storage limit reached/);
      const evaluation = await episode.evaluate();
      expect(evaluation.success).toBe(false);
    } finally {
      await episode.close();
    }
  });
});
