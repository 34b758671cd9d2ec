import { type ApiCall, defineApp, pageParameters, param } from '../api/definition.js';
import { found, maybe, num, pageOf, text } from '../api/helpers.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { accountApis } from './account-apis.js';
import { addLink, removeLink } from './links.js';

const songColumns = `s.id AS song_id, s.title, s.artist_id, a.name AS artist_name, s.album_id, s.genre,
  s.duration_seconds, s.release_date`;
const songFrom = 'music_songs s JOIN music_artists a ON a.id = s.artist_id';
/** Joins the song (s) and its artist (a) onto a table of song ids. */
const joinSong = (songIdColumn: string) =>
  `JOIN music_songs s ON s.id = ${songIdColumn} JOIN music_artists a ON a.id = s.artist_id`;
const songExample = {
  song_id: 1,
  title: 'string',
  artist_id: 1,
  artist_name: 'string',
  album_id: 1,
  genre: 'string',
  duration_seconds: 1,
  release_date: 'YYYY-MM-DD',
};
const songSorts = ['title', 'artist_name', 'release_date', 'duration_seconds'];

const songExists = (call: ApiCall): number => {
  const songId = num(call.args, 'song_id');
  found(oneRow(call.db, 'SELECT id FROM music_songs WHERE id = ?', songId), 'Song');
  return songId;
};

const ownPlaylist = (call: ApiCall): { id: number; title: string; is_public: number; created_at: string } =>
  found(
    oneRow(
      call.db,
      'SELECT * FROM music_playlists WHERE id = ? AND user_id = ?',
      num(call.args, 'playlist_id'),
      call.userId,
    ),
    'Playlist',
  );

/** A collection of songs a person keeps (liked songs, library): show, add, remove. */
function collectionApis(
  table: string,
  noun: string,
  timeColumn: string,
  verbs: { add: string; remove: string; show: string },
) {
  return [
    {
      name: verbs.show,
      method: 'GET' as const,
      description: `Show the songs in your ${noun}, most recent first.`,
      parameters: pageParameters([...songSorts, timeColumn]),
      responseExample: [{ ...songExample, [timeColumn]: 'YYYY-MM-DDTHH:MM:SS' }],
      handler: (call: ApiCall) =>
        pageOf(
          allRows(
            call.db,
            `SELECT ${songColumns}, c.${timeColumn} FROM ${table} c ${joinSong('c.song_id')}
             WHERE c.user_id = ? ORDER BY c.${timeColumn} DESC, s.id`,
            call.userId,
          ),
          call.args,
        ),
    },
    {
      name: verbs.add,
      method: 'POST' as const,
      description: `Add a song to your ${noun}.`,
      parameters: [param.required('song_id', 'integer', 'The id of the song.')],
      responseExample: { message: 'string' },
      handler: (call: ApiCall) => {
        const songId = songExists(call);
        addLink(
          call.db,
          table,
          { user_id: call.userId, song_id: songId },
          { [timeColumn]: call.task.now },
          `The song is already in your ${noun}.`,
        );
        return { message: `Song added to your ${noun}.` };
      },
    },
    {
      name: verbs.remove,
      method: 'DELETE' as const,
      description: `Remove a song from your ${noun}.`,
      parameters: [param.required('song_id', 'integer', 'The id of the song.')],
      responseExample: { message: 'string' },
      handler: (call: ApiCall) => {
        const songId = songExists(call);
        removeLink(call.db, table, { user_id: call.userId, song_id: songId }, `The song is not in your ${noun}.`);
        return { message: `Song removed from your ${noun}.` };
      },
    },
  ];
}

/** A music streaming app: a catalogue of songs, likes, a personal library and playlists. */
export const musicApp = defineApp(
  'music',
  'A music streaming app: search songs, albums and artists; like songs; keep a library; make playlists.',
  [
    ...accountApis('music', { username: 'email', resetChannel: 'email' }),
    {
      name: 'show_song',
      method: 'GET',
      description: 'Show one song of the catalogue.',
      authenticated: false,
      parameters: [param.required('song_id', 'integer', 'The id of the song.')],
      responseExample: { ...songExample, play_count: 1 },
      handler: (call) =>
        found(
          oneRow(
            call.db,
            `SELECT ${songColumns}, s.play_count FROM ${songFrom} WHERE s.id = ?`,
            num(call.args, 'song_id'),
          ),
          'Song',
        ),
    },
    {
      name: 'search_songs',
      method: 'GET',
      description: 'Search the catalogue by words of the title or artist name, and/or by genre.',
      authenticated: false,
      parameters: [
        param.optional('query', 'string', 'Words to look for in the title or artist name.', ''),
        param.optional('genre', 'string', 'Only songs of this genre.', null, { nullable: true }),
        ...pageParameters(songSorts),
      ],
      responseExample: [songExample],
      handler: (call) => {
        const query = `%${text(call.args, 'query').toLowerCase()}%`;
        const genre = maybe<string>(call.args, 'genre');
        return pageOf(
          allRows(
            call.db,
            `SELECT ${songColumns} FROM ${songFrom}
             WHERE (lower(s.title) LIKE ? OR lower(a.name) LIKE ?) AND (? IS NULL OR s.genre = ?) ORDER BY s.id`,
            query,
            query,
            genre,
            genre,
          ),
          call.args,
        );
      },
    },
    {
      name: 'show_artist',
      method: 'GET',
      description: 'Show an artist, with their albums.',
      authenticated: false,
      parameters: [param.required('artist_id', 'integer', 'The id of the artist.')],
      responseExample: {
        artist_id: 1,
        name: 'string',
        genre: 'string',
        follower_count: 1,
        albums: [{ album_id: 1, title: 'string' }],
      },
      handler: (call) => {
        const artistId = num(call.args, 'artist_id');
        const artist = found(
          oneRow<Record<string, unknown>>(
            call.db,
            'SELECT id AS artist_id, name, genre, follower_count FROM music_artists WHERE id = ?',
            artistId,
          ),
          'Artist',
        );
        const albums = allRows(
          call.db,
          'SELECT id AS album_id, title, release_date FROM music_albums WHERE artist_id = ?',
          artistId,
        );
        return { ...artist, albums };
      },
    },
    {
      name: 'search_artists',
      method: 'GET',
      description: 'Search artists by name.',
      authenticated: false,
      parameters: [
        param.optional('query', 'string', 'Words of the name.', ''),
        ...pageParameters(['name', 'follower_count']),
      ],
      responseExample: [{ artist_id: 1, name: 'string', genre: 'string', follower_count: 1 }],
      handler: (call) =>
        pageOf(
          allRows(
            call.db,
            'SELECT id AS artist_id, name, genre, follower_count FROM music_artists WHERE lower(name) LIKE ? ORDER BY id',
            `%${text(call.args, 'query').toLowerCase()}%`,
          ),
          call.args,
        ),
    },
    {
      name: 'show_album',
      method: 'GET',
      description: 'Show an album with its songs.',
      authenticated: false,
      parameters: [param.required('album_id', 'integer', 'The id of the album.')],
      responseExample: { album_id: 1, title: 'string', artist_id: 1, release_date: 'YYYY-MM-DD', songs: [songExample] },
      handler: (call) => {
        const albumId = num(call.args, 'album_id');
        const album = found(
          oneRow<Record<string, unknown>>(
            call.db,
            'SELECT id AS album_id, title, artist_id, release_date FROM music_albums WHERE id = ?',
            albumId,
          ),
          'Album',
        );
        return {
          ...album,
          songs: allRows(call.db, `SELECT ${songColumns} FROM ${songFrom} WHERE s.album_id = ? ORDER BY s.id`, albumId),
        };
      },
    },
    ...collectionApis('music_liked_songs', 'liked songs', 'liked_at', {
      show: 'show_liked_songs',
      add: 'like_song',
      remove: 'unlike_song',
    }),
    ...collectionApis('music_library_songs', 'library', 'added_at', {
      show: 'show_library_songs',
      add: 'add_song_to_library',
      remove: 'remove_song_from_library',
    }),
    {
      name: 'show_playlists',
      method: 'GET',
      description: 'Show your playlists (without their songs).',
      parameters: pageParameters(['title', 'created_at']),
      responseExample: [{ playlist_id: 1, title: 'string', is_public: true, song_count: 1, created_at: 'string' }],
      handler: (call) =>
        pageOf(
          allRows<Record<string, unknown>>(
            call.db,
            `SELECT p.id AS playlist_id, p.title, p.is_public, COUNT(ps.song_id) AS song_count, p.created_at
             FROM music_playlists p LEFT JOIN music_playlist_songs ps ON ps.playlist_id = p.id
             WHERE p.user_id = ? GROUP BY p.id ORDER BY p.id`,
            call.userId,
          ).map((row) => ({ ...row, is_public: row['is_public'] === 1 })),
          call.args,
        ),
    },
    {
      name: 'show_playlist',
      method: 'GET',
      description: 'Show one of your playlists with all its songs.',
      parameters: [param.required('playlist_id', 'integer', 'The id of the playlist.')],
      responseExample: { playlist_id: 1, title: 'string', is_public: true, created_at: 'string', songs: [songExample] },
      handler: (call) => {
        const playlist = ownPlaylist(call);
        const songs = allRows(
          call.db,
          `SELECT ${songColumns} FROM music_playlist_songs ps ${joinSong('ps.song_id')}
           WHERE ps.playlist_id = ? ORDER BY ps.added_at, s.id`,
          playlist.id,
        );
        return {
          playlist_id: playlist.id,
          title: playlist.title,
          is_public: playlist.is_public === 1,
          created_at: playlist.created_at,
          songs,
        };
      },
    },
    {
      name: 'create_playlist',
      method: 'POST',
      description: 'Create an empty playlist.',
      parameters: [
        param.required('title', 'string', 'The title of the playlist.', { minLength: 1 }),
        param.optional('is_public', 'boolean', 'Whether others can see the playlist.', false),
      ],
      responseExample: { message: 'string', playlist_id: 1 },
      handler: (call) => {
        const playlistId = insertRow(call.db, 'music_playlists', {
          user_id: call.userId,
          title: text(call.args, 'title'),
          is_public: call.args['is_public'] ? 1 : 0,
          created_at: call.task.now,
        });
        return { message: 'Playlist created.', playlist_id: playlistId };
      },
    },
    {
      name: 'add_song_to_playlist',
      method: 'POST',
      description: 'Add a song to one of your playlists.',
      parameters: [
        param.required('playlist_id', 'integer', 'The id of the playlist.'),
        param.required('song_id', 'integer', 'The id of the song.'),
      ],
      responseExample: { message: 'string' },
      handler: (call) => {
        const playlist = ownPlaylist(call);
        const songId = songExists(call);
        addLink(
          call.db,
          'music_playlist_songs',
          { playlist_id: playlist.id, song_id: songId },
          { added_at: call.task.now },
          'The song is already in the playlist.',
        );
        return { message: 'Song added to the playlist.' };
      },
    },
    {
      name: 'remove_song_from_playlist',
      method: 'DELETE',
      description: 'Remove a song from one of your playlists.',
      parameters: [
        param.required('playlist_id', 'integer', 'The id of the playlist.'),
        param.required('song_id', 'integer', 'The id of the song.'),
      ],
      responseExample: { message: 'string' },
      handler: (call) => {
        const playlist = ownPlaylist(call);
        removeLink(
          call.db,
          'music_playlist_songs',
          { playlist_id: playlist.id, song_id: num(call.args, 'song_id') },
          'The song is not in the playlist.',
        );
        return { message: 'Song removed from the playlist.' };
      },
    },
    {
      name: 'delete_playlist',
      method: 'DELETE',
      description: 'Delete one of your playlists.',
      parameters: [param.required('playlist_id', 'integer', 'The id of the playlist.')],
      responseExample: { message: 'string' },
      handler: (call) => {
        const playlist = ownPlaylist(call);
        run(call.db, 'DELETE FROM music_playlist_songs WHERE playlist_id = ?', playlist.id);
        run(call.db, 'DELETE FROM music_playlists WHERE id = ?', playlist.id);
        return { message: 'Playlist deleted.' };
      },
    },
  ],
);
