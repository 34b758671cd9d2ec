import { type ApiCall, ApiError, defineApp, pageParameters, param } from '../api/definition.js';
import { found, maybe, num, pageOf, text } from '../api/helpers.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { accountApis } from './account-apis.js';

interface NoteRow {
  id: number;
  title: string;
  content: string;
  tags: string;
  pinned: number;
  created_at: string;
  updated_at: string;
}

const tagsOf = (row: NoteRow): string[] => (row.tags === '' ? [] : row.tags.split(','));
const summary = (row: NoteRow) => ({
  note_id: row.id,
  title: row.title,
  tags: tagsOf(row),
  pinned: row.pinned === 1,
  created_at: row.created_at,
  updated_at: row.updated_at,
});
const summaryExample = {
  note_id: 1,
  title: 'string',
  tags: ['string'],
  pinned: false,
  created_at: 'string',
  updated_at: 'string',
};

const ownNote = (call: ApiCall): NoteRow =>
  found(
    oneRow<NoteRow>(
      call.db,
      'SELECT * FROM notes_notes WHERE id = ? AND user_id = ?',
      num(call.args, 'note_id'),
      call.userId,
    ),
    'Note',
  );

const tagParameter = param.required('tag', 'string', 'A tag: lower-case letters, digits and dashes.', { minLength: 1 });

function checkTag(tag: string): void {
  if (!/^[a-z0-9-]+$/.test(tag))
    throw new ApiError(422, `Invalid tag '${tag}': use lower-case letters, digits and dashes.`);
}

/** A notes app: notes with titles, text, tags and pins. */
export const notesApp = defineApp('notes', 'A notes app: write notes, tag and pin them, search them.', [
  ...accountApis('notes', { username: 'email', resetChannel: 'email' }),
  {
    name: 'show_notes',
    method: 'GET',
    description: 'Show your notes (without their content), pinned first, then most recently updated.',
    parameters: [
      param.optional('query', 'string', 'Words to look for in the title or content.', ''),
      param.optional('tag', 'string', 'Only notes with this tag.', null, { nullable: true }),
      ...pageParameters(['title', 'created_at', 'updated_at']),
    ],
    responseExample: [summaryExample],
    handler: (call) => {
      const query = `%${text(call.args, 'query').toLowerCase()}%`;
      const tag = maybe<string>(call.args, 'tag');
      return pageOf(
        allRows<NoteRow>(
          call.db,
          `SELECT * FROM notes_notes WHERE user_id = ? AND (lower(title) LIKE ? OR lower(content) LIKE ?)
             AND (? IS NULL OR (',' || tags || ',') LIKE ('%,' || ? || ',%'))
           ORDER BY pinned DESC, updated_at DESC, id DESC`,
          call.userId,
          query,
          query,
          tag,
          tag,
        ).map(summary),
        call.args,
      );
    },
  },
  {
    name: 'show_note',
    method: 'GET',
    description: 'Show one of your notes with its content.',
    parameters: [param.required('note_id', 'integer', 'The id of the note.')],
    responseExample: { ...summaryExample, content: 'string' },
    handler: (call) => {
      const row = ownNote(call);
      return { ...summary(row), content: row.content };
    },
  },
  {
    name: 'create_note',
    method: 'POST',
    description: 'Create a note.',
    parameters: [
      param.required('title', 'string', 'The title.', { minLength: 1 }),
      param.optional('content', 'string', 'The text of the note.', ''),
      param.optional('tags', 'list[string]', 'Tags: lower-case letters, digits and dashes.', []),
      param.optional('pinned', 'boolean', 'Whether the note is pinned to the top.', false),
    ],
    responseExample: { message: 'string', note_id: 1 },
    handler: (call) => {
      const tags = call.args['tags'] as string[];
      for (const tag of tags) checkTag(tag);
      const id = insertRow(call.db, 'notes_notes', {
        user_id: call.userId,
        title: text(call.args, 'title'),
        content: text(call.args, 'content'),
        tags: [...new Set(tags)].join(','),
        pinned: call.args['pinned'] ? 1 : 0,
        created_at: call.task.now,
        updated_at: call.task.now,
      });
      return { message: 'Note created.', note_id: id };
    },
  },
  {
    name: 'update_note',
    method: 'PATCH',
    description: 'Change the title, content or pin of a note; parameters left out stay as they are.',
    parameters: [
      param.required('note_id', 'integer', 'The id of the note.'),
      param.optional('title', 'string', 'The new title.', null, { nullable: true, minLength: 1 }),
      param.optional('content', 'string', 'The new content (replaces the old).', null, { nullable: true }),
      param.optional('pinned', 'boolean', 'Pin or unpin.', null, { nullable: true }),
    ],
    responseExample: { message: 'string' },
    handler: (call) => {
      const row = ownNote(call);
      const title = maybe<string>(call.args, 'title') ?? row.title;
      const content = maybe<string>(call.args, 'content') ?? row.content;
      const pinned = maybe<boolean>(call.args, 'pinned');
      run(
        call.db,
        'UPDATE notes_notes SET title = ?, content = ?, pinned = ?, updated_at = ? WHERE id = ?',
        title,
        content,
        pinned === null ? row.pinned : pinned ? 1 : 0,
        call.task.now,
        row.id,
      );
      return { message: 'Note updated.' };
    },
  },
  {
    name: 'add_note_tag',
    method: 'POST',
    description: 'Add a tag to a note.',
    parameters: [param.required('note_id', 'integer', 'The id of the note.'), tagParameter],
    responseExample: { message: 'string' },
    handler: (call) => {
      const row = ownNote(call);
      const tag = text(call.args, 'tag');
      checkTag(tag);
      const tags = tagsOf(row);
      if (tags.includes(tag)) throw new ApiError(409, `The note already has the tag '${tag}'.`);
      run(
        call.db,
        'UPDATE notes_notes SET tags = ?, updated_at = ? WHERE id = ?',
        [...tags, tag].join(','),
        call.task.now,
        row.id,
      );
      return { message: 'Tag added.' };
    },
  },
  {
    name: 'remove_note_tag',
    method: 'DELETE',
    description: 'Remove a tag from a note.',
    parameters: [param.required('note_id', 'integer', 'The id of the note.'), tagParameter],
    responseExample: { message: 'string' },
    handler: (call) => {
      const row = ownNote(call);
      const tag = text(call.args, 'tag');
      const tags = tagsOf(row);
      if (!tags.includes(tag)) throw new ApiError(404, `The note has no tag '${tag}'.`);
      run(
        call.db,
        'UPDATE notes_notes SET tags = ?, updated_at = ? WHERE id = ?',
        tags.filter((item) => item !== tag).join(','),
        call.task.now,
        row.id,
      );
      return { message: 'Tag removed.' };
    },
  },
  {
    name: 'delete_note',
    method: 'DELETE',
    description: 'Delete one of your notes.',
    parameters: [param.required('note_id', 'integer', 'The id of the note.')],
    responseExample: { message: 'string' },
    handler: (call) => {
      run(call.db, 'DELETE FROM notes_notes WHERE id = ?', ownNote(call).id);
      return { message: 'Note deleted.' };
    },
  },
]);
