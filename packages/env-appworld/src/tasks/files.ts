import { insertRow } from '../world/rows.js';
import { act, fetchPages, finish, login, pagedCall, withDoc } from './plan-steps.js';
import type { Scenario } from './types.js';
import { literal, person, pickPeople } from './world-facts.js';

const extraDownloads = [
  ['scan-0012', 'pdf'],
  ['recipe-card', 'txt'],
  ['city-map', 'pdf'],
  ['festival-lineup', 'png'],
] as const;

/** Moving every PDF out of a directory that spans several pages. */
const movePdfs: Scenario = {
  name: 'move-pdfs',
  family: 'files',
  split: 'train',
  difficulty: 2,
  tags: ['pagination', 'write'],
  variants: (db) =>
    pickPeople(db, 'move-pdfs', 3).map((id, index) => {
      const { email } = person(db, id);
      const target = ['/documents/pdfs', '/documents/papers', '/documents/scans'][index] ?? '/documents/pdfs';
      return {
        supervisorId: id,
        instruction: `Move every PDF file in my /downloads directory into a new directory ${target}, keeping the file names.`,
        setup: (world) => {
          for (const [name, extension] of extraDownloads) {
            insertRow(world, 'files_entries', {
              user_id: id,
              path: `/downloads/${name}.${extension}`,
              kind: 'file',
              content: `${name} contents`,
              created_at: '2024-05-02T12:00:00',
              updated_at: '2024-05-02T12:00:00',
            });
          }
        },
        plan: [
          ...login('files', email, 'filesToken', true),
          withDoc(
            'files',
            'show_directory',
            "var entries = apis.files.show_directory({ access_token: filesToken, directory: '/downloads' });",
            [
              fetchPages(
                [['entries', pagedCall('files', 'show_directory', "access_token: filesToken, path: '/downloads'")]],
                "var pdfs = entries.filter((entry) => entry.kind === 'file' && entry.name.endsWith('.pdf'));\nprint(pdfs.map((entry) => entry.name));",
              ),
            ],
          ),
          act(
            [
              `apis.files.create_directory({ access_token: filesToken, path: ${literal(target)} });`,
              `for (var entry of pdfs) apis.files.move_file({ access_token: filesToken, source_path: entry.path, destination_path: ${literal(`${target}/`)} + entry.name });`,
              `print(apis.files.show_directory({ access_token: filesToken, path: ${literal(target)}, page_limit: 20 }).map((entry) => entry.name));`,
            ].join('\n'),
            'I create the directory and move the files.',
          ),
          finish(),
        ],
        check: (context) => {
          const pdfs = context.before
            .prepare("SELECT path, content FROM files_entries WHERE user_id = ? AND path LIKE '/downloads/%.pdf'")
            .all(id) as Array<{ path: string; content: string }>;
          const moved = pdfs.map((file) => ({
            ...file,
            destination: `${target}/${file.path.slice('/downloads/'.length)}`,
          }));
          const missing = moved.filter((file) => {
            const row = context.after
              .prepare('SELECT content FROM files_entries WHERE user_id = ? AND path = ?')
              .get(id, file.destination) as { content: string } | undefined;
            return row?.content !== file.content;
          });
          const left = context.after
            .prepare("SELECT COUNT(*) AS count FROM files_entries WHERE user_id = ? AND path LIKE '/downloads/%.pdf'")
            .get(id) as {
            count: number;
          };
          context.require(
            'pdfs-moved',
            missing.length === 0 && pdfs.length > 0,
            `${missing.length} of ${pdfs.length} not in ${target}`,
          );
          context.require('downloads-has-no-pdf', left.count === 0, `${left.count} PDF file(s) left in /downloads`);
          const paths = new Set([...pdfs.map((file) => file.path), ...moved.map((file) => file.destination), target]);
          context.allow(
            'files_entries',
            (change) =>
              change.kind !== 'updated' &&
              paths.has(String((change.after ?? change.before)?.['path'])) &&
              (change.after ?? change.before)?.['user_id'] === id,
          );
        },
      };
    }),
};

/** Writing a year's order ids into a file. */
const ordersToFile: Scenario = {
  name: 'orders-to-file',
  family: 'files',
  split: 'test',
  difficulty: 2,
  tags: ['pagination', 'multi-app', 'write'],
  variants: (db) =>
    pickPeople(db, 'orders-to-file', 3).map((id, index) => {
      const { email } = person(db, id);
      const path =
        ['/documents/orders-2023.txt', '/documents/shop-2023.txt', '/documents/purchases-2023.txt'][index] ??
        '/documents/orders-2023.txt';
      return {
        supervisorId: id,
        instruction: `Save a file at ${path} listing the ids of all my shop orders placed in 2023, one id per line, oldest order first.`,
        setup: (world) => {
          for (let month = 1; month <= 3; month += 1) {
            insertRow(world, 'shop_orders', {
              user_id: id,
              address_id: 0,
              payment_card_id: 0,
              total: 19.99 * month,
              status: 'delivered',
              created_at: `2023-0${month}-1${month}T15:00:00`,
            });
          }
        },
        plan: [
          ...login('shop', email, 'shopToken', true),
          fetchPages(
            [['orders', pagedCall('shop', 'show_orders', 'access_token: shopToken')]],
            "var ids = orders.filter((order) => order.created_at.startsWith('2023')).sort((a, b) => a.created_at.localeCompare(b.created_at)).map((order) => order.order_id);\nprint(ids);",
          ),
          ...login('files', email, 'filesToken'),
          withDoc(
            'files',
            'create_file',
            `apis.files.create_file({ access_token: filesToken, file_path: ${literal(path)}, content: ids.join('\\n') });`,
            [
              act(
                `print(apis.files.create_file({ access_token: filesToken, path: ${literal(path)}, content: ids.join('\\n') }));`,
                'I write the file.',
              ),
            ],
          ),
          finish(),
        ],
        check: (context) => {
          const expected = (
            context.before
              .prepare(
                "SELECT id FROM shop_orders WHERE user_id = ? AND created_at LIKE '2023-%' ORDER BY created_at, id",
              )
              .all(id) as Array<{ id: number }>
          ).map((row) => String(row.id));
          const file = context.after
            .prepare('SELECT content FROM files_entries WHERE user_id = ? AND path = ?')
            .get(id, path) as { content: string } | undefined;
          const lines = (file?.content ?? '')
            .split('\n')
            .map((line) => line.trim())
            .filter((line) => line !== '');
          context.require('file-written', file !== undefined, file ? 'the file exists' : `no file at ${path}`);
          context.require(
            'order-ids',
            JSON.stringify(lines) === JSON.stringify(expected),
            `expected ${expected.join(',')}, found ${lines.join(',')}`,
          );
          context.allow(
            'files_entries',
            (change) => change.kind === 'added' && change.after?.['path'] === path && change.after['user_id'] === id,
          );
        },
      };
    }),
};

export const filesScenarios: Scenario[] = [movePdfs, ordersToFile];
