import { type ApiCall, ApiError, defineApp, pageParameters, param } from '../api/definition.js';
import { pageOf, text } from '../api/helpers.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { accountApis } from './account-apis.js';

interface EntryRow {
  path: string;
  kind: 'file' | 'directory';
  content: string;
  created_at: string;
  updated_at: string;
}

/** An absolute path without a trailing slash; 422 for anything else. */
function normalPath(value: string): string {
  if (!value.startsWith('/')) throw new ApiError(422, `Paths must be absolute (start with /), got '${value}'.`);
  if (value.split('/').some((part) => part === '.' || part === '..'))
    throw new ApiError(422, "Paths may not contain '.' or '..'.");
  const trimmed = value.replace(/\/+/g, '/').replace(/\/$/, '');
  return trimmed === '' ? '/' : trimmed;
}

const parentOf = (path: string): string => path.slice(0, path.lastIndexOf('/')) || '/';
const nameOf = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

const entry = (call: ApiCall, path: string): EntryRow | undefined =>
  oneRow<EntryRow>(call.db, 'SELECT * FROM files_entries WHERE user_id = ? AND path = ?', call.userId, path);

function existing(call: ApiCall, path: string, kind: EntryRow['kind']): EntryRow {
  const row = entry(call, path);
  if (!row) throw new ApiError(404, `No ${kind} at '${path}'.`);
  if (row.kind !== kind) throw new ApiError(422, `'${path}' is a ${row.kind}, not a ${kind}.`);
  return row;
}

function vacant(call: ApiCall, path: string): void {
  existing(call, parentOf(path), 'directory');
  if (entry(call, path)) throw new ApiError(409, `Something already exists at '${path}'.`);
}

const pathParameter = param.required('path', 'string', 'An absolute path, e.g. /documents/notes.txt.');

/** A personal file system: directories and text files. */
export const filesApp = defineApp('files', 'Your personal file system: directories and files with text content.', [
  ...accountApis('files', { username: 'email', resetChannel: 'email' }),
  {
    name: 'show_directory',
    method: 'GET',
    description: 'List the entries directly inside a directory, by path.',
    parameters: [pathParameter, ...pageParameters(['path', 'name', 'updated_at'])],
    responseExample: [{ path: 'string', name: 'string', kind: 'file | directory', updated_at: 'string' }],
    handler: (call) => {
      const directory = normalPath(text(call.args, 'path'));
      existing(call, directory, 'directory');
      const prefix = directory === '/' ? '/' : `${directory}/`;
      const rows = allRows<EntryRow>(
        call.db,
        "SELECT * FROM files_entries WHERE user_id = ? AND path LIKE ? AND path <> '/' ORDER BY path",
        call.userId,
        `${prefix}%`,
      ).filter((row) => !row.path.slice(prefix.length).includes('/'));
      return pageOf(
        rows.map((row) => ({ path: row.path, name: nameOf(row.path), kind: row.kind, updated_at: row.updated_at })),
        call.args,
      );
    },
  },
  {
    name: 'show_file',
    method: 'GET',
    description: 'Show a file with its content.',
    parameters: [pathParameter],
    responseExample: { path: 'string', content: 'string', created_at: 'string', updated_at: 'string' },
    handler: (call) => {
      const row = existing(call, normalPath(text(call.args, 'path')), 'file');
      return { path: row.path, content: row.content, created_at: row.created_at, updated_at: row.updated_at };
    },
  },
  {
    name: 'create_file',
    method: 'POST',
    description: 'Create a file in an existing directory.',
    parameters: [pathParameter, param.optional('content', 'string', 'The text content.', '')],
    responseExample: { message: 'string' },
    handler: (call) => {
      const path = normalPath(text(call.args, 'path'));
      vacant(call, path);
      const row = {
        user_id: call.userId,
        path,
        kind: 'file',
        content: text(call.args, 'content'),
        created_at: call.task.now,
        updated_at: call.task.now,
      };
      insertRow(call.db, 'files_entries', row);
      return { message: 'File created.' };
    },
  },
  {
    name: 'update_file',
    method: 'PUT',
    description: 'Replace the content of a file.',
    parameters: [pathParameter, param.required('content', 'string', 'The new content.')],
    responseExample: { message: 'string' },
    handler: (call) => {
      const row = existing(call, normalPath(text(call.args, 'path')), 'file');
      run(
        call.db,
        'UPDATE files_entries SET content = ?, updated_at = ? WHERE user_id = ? AND path = ?',
        text(call.args, 'content'),
        call.task.now,
        call.userId,
        row.path,
      );
      return { message: 'File updated.' };
    },
  },
  {
    name: 'delete_file',
    method: 'DELETE',
    description: 'Delete a file.',
    parameters: [pathParameter],
    responseExample: { message: 'string' },
    handler: (call) => {
      const row = existing(call, normalPath(text(call.args, 'path')), 'file');
      run(call.db, 'DELETE FROM files_entries WHERE user_id = ? AND path = ?', call.userId, row.path);
      return { message: 'File deleted.' };
    },
  },
  {
    name: 'move_file',
    method: 'POST',
    description: 'Move (or rename) a file; the destination directory must exist and the destination path must be free.',
    parameters: [
      param.required('source_path', 'string', 'Where the file is now.'),
      param.required('destination_path', 'string', 'The full new path of the file, including its name.'),
    ],
    responseExample: { message: 'string' },
    handler: (call) => {
      const source = existing(call, normalPath(text(call.args, 'source_path')), 'file');
      const destination = normalPath(text(call.args, 'destination_path'));
      vacant(call, destination);
      run(
        call.db,
        'UPDATE files_entries SET path = ?, updated_at = ? WHERE user_id = ? AND path = ?',
        destination,
        call.task.now,
        call.userId,
        source.path,
      );
      return { message: 'File moved.' };
    },
  },
  {
    name: 'create_directory',
    method: 'POST',
    description: 'Create a directory inside an existing one.',
    parameters: [pathParameter],
    responseExample: { message: 'string' },
    handler: (call) => {
      const path = normalPath(text(call.args, 'path'));
      vacant(call, path);
      insertRow(call.db, 'files_entries', {
        user_id: call.userId,
        path,
        kind: 'directory',
        content: '',
        created_at: call.task.now,
        updated_at: call.task.now,
      });
      return { message: 'Directory created.' };
    },
  },
]);
