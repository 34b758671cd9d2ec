import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api/definition.js';
import { apps } from '../apps/index.js';
import { generateWorld, peopleCount } from './generate.js';
import { systemSender } from './schema.js';
import { WorldSession } from './session.js';

const digest = (buffer: Buffer) => createHash('sha256').update(buffer).digest('hex');

/** A session on a fresh world, working for person 1. */
function session(seed = 100) {
  const db = generateWorld(seed);
  return { db, world: new WorldSession(db, { supervisorId: 1, now: '2024-06-14T10:00:00', seed: 7 }) };
}

/** The supervisor's email and the password the supervisor app keeps for each of its accounts. */
function supervisorAccounts(world: WorldSession) {
  const passwords = world.call('supervisor', 'show_account_passwords', {}) as Array<{
    account_name: string;
    password: string;
  }>;
  const { email } = world.call('supervisor', 'show_profile', {}) as { email: string };
  return { email, passwordOf: (app: string) => passwords.find((item) => item.account_name === app)?.password };
}

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

describe('the generated world', () => {
  it('is the same for the same seed and different for another', () => {
    const [first, again, other] = [generateWorld(100), generateWorld(100), generateWorld(101)];
    expect(digest(first.serialize())).toBe(digest(again.serialize()));
    expect(digest(first.serialize())).not.toBe(digest(other.serialize()));
    const count = first.prepare('SELECT COUNT(*) AS count FROM people').get() as { count: number };
    expect(count.count).toBe(peopleCount);
    expect(peopleCount).toBeGreaterThanOrEqual(20);
    for (const db of [first, again, other]) db.close();
  });

  it('has at least 7 apps besides supervisor and api_docs, and at least 80 APIs', () => {
    const names = apps.map((app) => app.name);
    expect(names).toContain('supervisor');
    expect(names).toContain('api_docs');
    expect(names.filter((name) => name !== 'supervisor' && name !== 'api_docs').length).toBeGreaterThanOrEqual(7);
    expect(apps.reduce((sum, app) => sum + app.apis.length, 0)).toBeGreaterThanOrEqual(80);
  });
});

describe('APIs', () => {
  it('documents every API with parameters, types, defaults, constraints and response schemas', () => {
    const { db, world } = session();
    const descriptions = world.call('api_docs', 'show_app_descriptions', {}) as Array<{ name: string }>;
    expect(descriptions.map((item) => item.name)).toEqual(apps.map((app) => app.name));
    const doc = world.call('api_docs', 'show_api_doc', { app_name: 'music', api_name: 'show_liked_songs' }) as {
      parameters: Array<{ name: string; type: string; required: boolean; default: unknown; constraints: string[] }>;
      response_schemas: { success: unknown; failure: unknown };
      method: string;
      path: string;
    };
    expect(doc.method).toBe('GET');
    expect(doc.path).toBe('/music/show-liked-songs');
    expect(doc.parameters.find((item) => item.name === 'page_limit')).toEqual(
      expect.objectContaining({
        type: 'integer',
        required: false,
        default: 5,
        constraints: ['value >= 1', 'value <= 20'],
      }),
    );
    expect(doc.parameters.find((item) => item.name === 'access_token')).toMatchObject({
      required: true,
      default: null,
    });
    expect(doc.response_schemas.failure).toEqual({ message: 'string' });
    expect(failure(() => world.call('api_docs', 'show_api_doc', { app_name: 'music', api_name: 'nope' })).status).toBe(
      404,
    );
    db.close();
  });

  it('logs in with the supervisor password, refuses bad tokens, pages lists and validates arguments', () => {
    const { db, world } = session();
    const { email, passwordOf } = supervisorAccounts(world);
    const password = passwordOf('music');
    expect(failure(() => world.call('music', 'login', { username: email, password: 'guess' }))).toEqual({
      status: 401,
      message: 'Invalid credentials.',
    });
    const { access_token } = world.call('music', 'login', { username: email, password }) as {
      access_token: string;
    };
    expect(failure(() => world.call('music', 'show_liked_songs', { access_token: 'forged' })).status).toBe(401);
    const total = (
      db.prepare('SELECT COUNT(*) AS count FROM music_liked_songs WHERE user_id = 1').get() as { count: number }
    ).count;
    const pages: unknown[][] = [];
    for (let page = 0; ; page += 1) {
      const batch = world.call('music', 'show_liked_songs', {
        access_token,
        page_index: page,
        page_limit: 20,
      }) as unknown[];
      if (batch.length === 0) break;
      pages.push(batch);
    }
    expect(pages.flat().length).toBe(total);
    expect((world.call('music', 'show_liked_songs', { access_token }) as unknown[]).length).toBe(5);
    const sorted = world.call('music', 'show_liked_songs', {
      access_token,
      sort_by: '+title',
      page_limit: 20,
    }) as Array<{ title: string }>;
    expect(sorted.map((song) => song.title)).toEqual(
      [...sorted.map((song) => song.title)].sort((a, b) => a.localeCompare(b)),
    );
    expect(failure(() => world.call('music', 'show_liked_songs', { access_token, page_limit: 21 }))).toEqual({
      status: 422,
      message: "Validation error: parameter 'page_limit' must be <= 20.",
    });
    expect(failure(() => world.call('music', 'show_liked_songs', { access_token, page: 1 })).message).toBe(
      "Validation error: unexpected parameter 'page'.",
    );
    expect(failure(() => world.call('music', 'like_song', { access_token })).message).toBe(
      "Validation error: parameter 'song_id' is required.",
    );
    expect(failure(() => world.call('music', 'like_song', { access_token, song_id: '3' })).message).toMatch(
      /must be an integer/,
    );
    db.close();
  });

  it('adds a link once and removes it once: carts, wishlists, liked songs, libraries and playlists', () => {
    const { db, world } = session();
    const { email, passwordOf } = supervisorAccounts(world);
    const tokenOf = (app: string) =>
      (world.call(app, 'login', { username: email, password: passwordOf(app) }) as { access_token: string })
        .access_token;
    const first = (sql: string) => (db.prepare(sql).get() as { id: number }).id;
    const productId = first('SELECT MIN(id) AS id FROM shop_products');
    const songId = first('SELECT MIN(id) AS id FROM music_songs');
    const [shop, music] = [tokenOf('shop'), tokenOf('music')];
    const { playlist_id } = world.call('music', 'create_playlist', { access_token: music, title: 'Road trip' }) as {
      playlist_id: number;
    };
    const links = [
      ['shop', 'product_to_cart', 'shop_cart_items', { user_id: 1, product_id: productId }, 'in your cart'],
      ['shop', 'product_to_wishlist', 'shop_wishlist_items', { user_id: 1, product_id: productId }, 'on your wishlist'],
      ['music', 'song_to_library', 'music_library_songs', { user_id: 1, song_id: songId }, 'in your library'],
      ['music', 'song_to_playlist', 'music_playlist_songs', { playlist_id, song_id: songId }, 'in the playlist'],
    ] as const;
    for (const [app, what, table, key, where] of links) {
      // The caller names the link by its ids; the user is the one logged in.
      const { user_id: _user, ...ids } = key as Record<string, number>;
      const args = { access_token: app === 'shop' ? shop : music, ...ids };
      const condition = Object.keys(key)
        .map((column) => `${column} = @${column}`)
        .join(' AND ');
      const present = () =>
        db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${condition}`).get(key) as { n: number };
      db.prepare(`DELETE FROM ${table} WHERE ${condition}`).run(key);
      const [add, remove] = [`add_${what}`, `remove_${what.replace('_to_', '_from_')}`];
      world.call(app, add, args);
      expect(present().n, `${app}.${add}`).toBe(1);
      const again = failure(() => world.call(app, add, args));
      expect(again.status, `${app}.${add} twice`).toBe(409);
      expect(again.message).toContain(`already ${where}`);
      world.call(app, remove, args);
      expect(present().n, `${app}.${remove}`).toBe(0);
      const gone = failure(() => world.call(app, remove, args));
      expect(gone.status, `${app}.${remove} twice`).toBe(404);
      expect(gone.message).toContain(`not ${where}`);
    }
    // Liked songs use their own verbs.
    db.prepare('DELETE FROM music_liked_songs WHERE user_id = 1 AND song_id = ?').run(songId);
    world.call('music', 'like_song', { access_token: music, song_id: songId });
    expect(failure(() => world.call('music', 'like_song', { access_token: music, song_id: songId }))).toEqual({
      status: 409,
      message: 'The song is already in your liked songs.',
    });
    world.call('music', 'unlike_song', { access_token: music, song_id: songId });
    expect(failure(() => world.call('music', 'unlike_song', { access_token: music, song_id: songId }))).toEqual({
      status: 404,
      message: 'The song is not in your liked songs.',
    });
    db.close();
  });

  it('resets a password through a code sent by email, refusing a wrong code and a short password', () => {
    const { db, world } = session();
    const email = (world.call('supervisor', 'show_profile', {}) as { email: string }).email;
    const before = db.prepare('SELECT COUNT(*) AS count FROM mail_messages').get();
    expect(
      failure(() =>
        world.call('shop', 'reset_password', { email, password_reset_code: '000000', new_password: 'longenough' }),
      ).status,
    ).toBe(401);
    world.call('shop', 'send_password_reset_code', { email });
    const message = db
      .prepare('SELECT body FROM mail_messages WHERE user_id = 1 AND sender = ? ORDER BY id DESC')
      .get(systemSender('shop')) as { body: string };
    const code = /\d{6}/.exec(message.body)?.[0] ?? '';
    expect(
      failure(() => world.call('shop', 'reset_password', { email, password_reset_code: code, new_password: 'short' }))
        .status,
    ).toBe(422);
    world.call('shop', 'reset_password', { email, password_reset_code: code, new_password: 'brand-new-pass' });
    expect(world.call('shop', 'login', { username: email, password: 'brand-new-pass' })).toMatchObject({
      token_type: 'Bearer',
    });
    expect(db.prepare('SELECT COUNT(*) AS count FROM mail_messages').get()).toEqual({
      count: (before as { count: number }).count + 1,
    });
    db.close();
  });

  it('ends the task with complete_task and refuses calls afterwards', () => {
    const { db, world } = session();
    world.call('supervisor', 'complete_task', { answer: ['a', 'b'] });
    expect(world.completion).toEqual({ answer: ['a', 'b'], status: 'success' });
    expect(failure(() => world.call('supervisor', 'show_profile', {})).status).toBe(409);
    db.close();
  });
});
