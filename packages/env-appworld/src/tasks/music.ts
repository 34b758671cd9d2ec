import type { Database } from 'better-sqlite3';
import { numberOf } from '../evaluation/check-context.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { act, decide, fetchPages, finish, login, pagedCall, withDoc } from './plan-steps.js';
import type { Scenario } from './types.js';
import { choose, literal, person, pickPeople } from './world-facts.js';

const likedCall = pagedCall('music', 'show_liked_songs', 'access_token: musicToken');
const libraryCall = pagedCall('music', 'show_library_songs', 'access_token: musicToken');

const songIds = (db: Database, sql: string, ...parameters: unknown[]): number[] =>
  allRows<{ song_id: number }>(db, sql, ...parameters).map((row) => row.song_id);

const playlistOf = (db: Database, userId: number, title: string) =>
  oneRow<{ id: number }>(db, 'SELECT id FROM music_playlists WHERE user_id = ? AND title = ?', userId, title);

/** Finds a playlist by title and shows it (into `details`). */
const openPlaylist = (title: string) =>
  act(
    [
      'var playlists = apis.music.show_playlists({ access_token: musicToken, page_limit: 20 });',
      `var playlist = playlists.find((item) => item.title === ${literal(title)});`,
      'print(playlist);',
    ].join('\n'),
    `I look for the ${title} playlist.`,
  );

/** Liked AND in the library, into a new playlist: the train-split intersection case. */
const likedLibraryPlaylist: Scenario = {
  name: 'liked-library-playlist',
  family: 'music',
  split: 'train',
  difficulty: 2,
  tags: ['intersection', 'pagination'],
  variants: (db) =>
    pickPeople(db, 'liked-library-playlist', 3).map((id, index) => {
      const { email } = person(db, id);
      const title = ['Keepers', 'Best of Both', 'True Favourites'][index] ?? 'Keepers';
      return {
        supervisorId: id,
        instruction: `Create a new playlist titled "${title}" in my music app with every song that I have liked and that is also in my music library.`,
        plan: [
          ...login('music', email, 'musicToken', true),
          withDoc(
            'music',
            'show_liked_songs',
            'var liked = apis.music.show_liked_songs({ access_token: musicToken, page: 0, limit: 20 });',
            [
              fetchPages(
                [
                  ['liked', likedCall],
                  ['library', libraryCall],
                ],
                "print(liked.length + ' liked songs, ' + library.length + ' songs in the library');",
              ),
            ],
          ),
          decide(
            'intersect-not-union',
            [
              act(
                'var libraryIds = new Set(library.map((song) => song.song_id));\nvar chosen = liked.filter((song) => libraryIds.has(song.song_id));\nprint(chosen.map((song) => song.title));',
                'I keep the songs that are in both lists.',
              ),
            ],
            [
              act(
                'var likedIds = new Set(liked.map((song) => song.song_id));\nvar chosen = liked.concat(library.filter((song) => !likedIds.has(song.song_id)));\nprint(chosen.map((song) => song.title));',
                'I gather the liked songs and the library songs.',
              ),
            ],
          ),
          act(
            [
              `var playlistId = apis.music.create_playlist({ access_token: musicToken, title: ${literal(title)} }).playlist_id;`,
              'for (var song of chosen) apis.music.add_song_to_playlist({ access_token: musicToken, playlist_id: playlistId, song_id: song.song_id });',
              "print(apis.music.show_playlist({ access_token: musicToken, playlist_id: playlistId }).songs.length + ' songs in the playlist');",
            ].join('\n'),
            'Now I create the playlist and add the songs.',
          ),
          finish(),
        ],
        check: (context) => {
          const expected = songIds(
            context.before,
            'SELECT l.song_id FROM music_liked_songs l JOIN music_library_songs b ON b.user_id = l.user_id AND b.song_id = l.song_id WHERE l.user_id = ? ORDER BY l.song_id',
            id,
          );
          const created = context
            .changes('music_playlists')
            .filter(
              (change) =>
                change.kind === 'added' && change.after?.['user_id'] === id && change.after['title'] === title,
            );
          context.require(
            'playlist-created',
            created.length === 1,
            `${created.length} new playlist(s) titled "${title}"`,
          );
          const playlistId = numberOf(created[0]?.after ?? null, 'id');
          const actual = songIds(
            context.after,
            'SELECT song_id FROM music_playlist_songs WHERE playlist_id = ? ORDER BY song_id',
            playlistId,
          );
          context.require(
            'playlist-songs',
            JSON.stringify(actual) === JSON.stringify(expected),
            `expected songs ${expected.join(',')}, found ${actual.join(',')}`,
          );
          context.allow(
            'music_playlists',
            (change) => change.kind === 'added' && change.after?.['title'] === title && change.after['user_id'] === id,
          );
          context.allow(
            'music_playlist_songs',
            (change) => change.kind === 'added' && change.after?.['playlist_id'] === playlistId,
          );
        },
      };
    }),
};

/** Songs in a playlist AND liked, as an answer: the held-out intersection case (test split). */
const playlistLikedTitles: Scenario = {
  name: 'playlist-liked-titles',
  family: 'music',
  split: 'test',
  difficulty: 2,
  tags: ['intersection', 'pagination'],
  variants: (db) =>
    pickPeople(db, 'playlist-liked-titles', 3).map((id) => {
      const { email } = person(db, id);
      const playlists = allRows<{ id: number; title: string }>(
        db,
        'SELECT id, title FROM music_playlists WHERE user_id = ? ORDER BY id',
        id,
      );
      const target = choose(playlists, `playlist-liked-titles:${id}`);
      return {
        supervisorId: id,
        instruction: `Which songs in my "${target.title}" playlist have I also liked? Answer with the list of their titles.`,
        setup: (world) => {
          // Two songs of the playlist are liked, so the answer is never empty.
          const inPlaylist = songIds(
            world,
            'SELECT song_id FROM music_playlist_songs WHERE playlist_id = ? ORDER BY song_id',
            target.id,
          );
          for (const songId of inPlaylist.slice(0, 2)) {
            run(
              world,
              'INSERT OR IGNORE INTO music_liked_songs (user_id, song_id, liked_at) VALUES (?, ?, ?)',
              id,
              songId,
              '2023-03-02T12:00:00',
            );
          }
        },
        plan: [
          ...login('music', email, 'musicToken', true),
          openPlaylist(target.title),
          withDoc(
            'music',
            'show_playlist',
            `var details = apis.music.show_playlist({ access_token: musicToken, title: ${literal(target.title)} });`,
            [
              act(
                'var details = apis.music.show_playlist({ access_token: musicToken, playlist_id: playlist.playlist_id });\nprint(details.songs.map((song) => song.title));',
              ),
            ],
          ),
          fetchPages([['liked', likedCall]], "print(liked.length + ' liked songs');"),
          decide(
            'intersect-not-union',
            [
              act(
                'var likedIds = new Set(liked.map((song) => song.song_id));\nvar titles = details.songs.filter((song) => likedIds.has(song.song_id)).map((song) => song.title);\nprint(titles);',
                'I keep the playlist songs that are also liked.',
              ),
            ],
            [
              act(
                'var titles = [...new Set(details.songs.map((song) => song.title).concat(liked.map((song) => song.title)))];\nprint(titles);',
                'I combine the playlist songs and the liked songs.',
              ),
            ],
          ),
          finish('titles'),
        ],
        check: (context) => {
          const playlistId = playlistOf(context.before, id, target.title)?.id ?? -1;
          const titles = allRows<{ title: string }>(
            context.before,
            `SELECT s.title FROM music_playlist_songs p JOIN music_songs s ON s.id = p.song_id
             JOIN music_liked_songs l ON l.song_id = p.song_id AND l.user_id = ? WHERE p.playlist_id = ?`,
            id,
            playlistId,
          ).map((row) => row.title);
          context.expectAnswer(titles);
        },
      };
    }),
};

/** Counting an artist's songs in the library, which spans several pages. */
const countArtistLibrary: Scenario = {
  name: 'count-artist-library',
  family: 'music',
  split: 'dev',
  difficulty: 1,
  tags: ['pagination'],
  variants: (db) =>
    pickPeople(db, 'count-artist-library', 3).map((id, index) => {
      const { email } = person(db, id);
      const artist = oneRow<{ id: number; name: string }>(
        db,
        'SELECT id, name FROM music_artists WHERE id = ?',
        3 + index * 11,
      ) ?? {
        id: 1,
        name: '',
      };
      return {
        supervisorId: id,
        instruction: `How many songs by ${artist.name} are in my music library?`,
        setup: (world) => {
          // Three of the artist's songs, added long ago, so they sit past the first page.
          const songs = songIds(
            world,
            'SELECT id AS song_id FROM music_songs WHERE artist_id = ? ORDER BY id',
            artist.id,
          );
          songs.slice(0, 3).forEach((songId, offset) => {
            run(
              world,
              'INSERT OR IGNORE INTO music_library_songs (user_id, song_id, added_at) VALUES (?, ?, ?)',
              id,
              songId,
              `2022-0${offset + 1}-15T09:00:00`,
            );
          });
        },
        plan: [
          ...login('music', email, 'musicToken', true),
          withDoc(
            'music',
            'show_library_songs',
            'var library = apis.music.show_library_songs({ token: musicToken });',
            [
              fetchPages(
                [['library', libraryCall]],
                `var count = library.filter((song) => song.artist_name === ${literal(artist.name)}).length;\nprint(count);`,
              ),
            ],
          ),
          finish('count'),
        ],
        check: (context) => {
          const count = oneRow<{ count: number }>(
            context.before,
            'SELECT COUNT(*) AS count FROM music_library_songs l JOIN music_songs s ON s.id = l.song_id WHERE l.user_id = ? AND s.artist_id = ?',
            id,
            artist.id,
          );
          context.expectAnswer(count?.count ?? 0);
        },
      };
    }),
};

const likeMissingCode = (genre: string): string =>
  [
    'var likedNow = [];\nfor (var page = 0; ; page += 1) {\n  var batch = apis.music.show_liked_songs({ access_token: musicToken, page_index: page, page_limit: 20 });\n  if (batch.length === 0) break;\n  likedNow = likedNow.concat(batch);\n}',
    'var likedIds = new Set(likedNow.map((song) => song.song_id));',
    `var missing = details.songs.filter((song) => song.genre === ${literal(genre)} && !likedIds.has(song.song_id));`,
    'for (var song of missing) apis.music.like_song({ access_token: musicToken, song_id: song.song_id });',
    "print('Liked ' + missing.length + ' more songs.');",
  ].join('\n');

/** Liking a playlist's songs of one genre; one is liked already, so a naive loop stops half way. */
const likeGenreInPlaylist: Scenario = {
  name: 'like-genre-in-playlist',
  family: 'music',
  split: 'train',
  difficulty: 2,
  tags: ['write', 'verification'],
  variants: (db) =>
    pickPeople(db, 'like-genre-in-playlist', 3).map((id, index) => {
      const { email } = person(db, id);
      const playlist = allRows<{ id: number; title: string }>(
        db,
        'SELECT id, title FROM music_playlists WHERE user_id = ? ORDER BY id',
        id,
      )[0] ?? {
        id: 0,
        title: '',
      };
      const genre = ['jazz', 'folk', 'electronic'][index] ?? 'jazz';
      return {
        supervisorId: id,
        instruction: `Like every ${genre} song in my "${playlist.title}" playlist that I have not liked yet.`,
        setup: (world) => {
          const fresh = songIds(
            world,
            `SELECT id AS song_id FROM music_songs WHERE genre = ? AND id NOT IN (SELECT song_id FROM music_playlist_songs WHERE playlist_id = ?)
             AND id NOT IN (SELECT song_id FROM music_liked_songs WHERE user_id = ?) ORDER BY id LIMIT 3`,
            genre,
            playlist.id,
            id,
          );
          fresh.forEach((songId, offset) => {
            insertRow(world, 'music_playlist_songs', {
              playlist_id: playlist.id,
              song_id: songId,
              added_at: `2030-01-0${offset + 1}T00:00:00`,
            });
          });
          // The middle one is liked already: a loop that likes all of them fails on it.
          const middle = fresh[1];
          if (middle !== undefined)
            insertRow(world, 'music_liked_songs', { user_id: id, song_id: middle, liked_at: '2024-01-01T00:00:00' });
        },
        plan: [
          ...login('music', email, 'musicToken', true),
          openPlaylist(playlist.title),
          act(
            "var details = apis.music.show_playlist({ access_token: musicToken, playlist_id: playlist.playlist_id });\nprint(details.songs.map((song) => song.title + ' (' + song.genre + ')'));",
          ),
          withDoc(
            'music',
            'like_song',
            'apis.music.like_song({ access_token: musicToken, id: details.songs[0].song_id });',
            [
              act(
                `var genreSongs = details.songs.filter((song) => song.genre === ${literal(genre)});\nfor (var song of genreSongs) apis.music.like_song({ access_token: musicToken, song_id: song.song_id });\nprint('Liked ' + genreSongs.length + ' songs.');`,
                `I like the ${genre} songs of the playlist.`,
              ),
            ],
          ),
          decide(
            'check-after-write',
            [act(likeMissingCode(genre), 'Let me check which of them are liked now and like the rest.')],
            [],
          ),
          finish(),
        ],
        check: (context) => {
          const expected = songIds(
            context.before,
            `SELECT p.song_id FROM music_playlist_songs p JOIN music_songs s ON s.id = p.song_id WHERE p.playlist_id = ? AND s.genre = ?
             ORDER BY p.song_id`,
            playlist.id,
            genre,
          );
          const likedAfter = new Set(
            songIds(context.after, 'SELECT song_id FROM music_liked_songs WHERE user_id = ?', id),
          );
          const missing = expected.filter((songId) => !likedAfter.has(songId));
          context.require('genre-songs-liked', missing.length === 0, `not liked: ${missing.join(',') || 'none'}`);
          context.allow(
            'music_liked_songs',
            (change) =>
              change.kind === 'added' &&
              change.after?.['user_id'] === id &&
              expected.includes(numberOf(change.after, 'song_id')),
          );
        },
      };
    }),
};

export const musicScenarios: Scenario[] = [
  likedLibraryPlaylist,
  playlistLikedTitles,
  countArtistLibrary,
  likeGenreInPlaylist,
];
