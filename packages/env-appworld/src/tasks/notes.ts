import { numberOf } from '../evaluation/check-context.js';
import { allRows, insertRow } from '../world/rows.js';
import { act, decide, fetchPages, finish, login, pagedCall, withDoc } from './plan-steps.js';
import type { Scenario } from './types.js';
import { literal, person, pickPeople } from './world-facts.js';

/** Writing the cart's products into a new note. */
const cartToNote: Scenario = {
  name: 'cart-to-note',
  family: 'notes',
  split: 'train',
  difficulty: 2,
  tags: ['multi-app', 'write'],
  variants: (db) =>
    pickPeople(db, 'cart-to-note', 3).map((id, index) => {
      const { email } = person(db, id);
      const title = ['Shopping list', 'To buy', 'Cart items'][index] ?? 'Shopping list';
      return {
        supervisorId: id,
        instruction: `Create a note titled "${title}" that lists the names of the products in my shop cart, one name per line.`,
        plan: [
          ...login('shop', email, 'shopToken', true),
          withDoc('shop', 'show_cart', 'var cart = apis.shop.show_cart({ token: shopToken });', [
            act(
              'var cart = apis.shop.show_cart({ access_token: shopToken });\nvar names = cart.items.map((item) => item.name);\nprint(names);',
              'I read my cart.',
            ),
          ]),
          ...login('notes', email, 'notesToken'),
          act(
            `print(apis.notes.create_note({ access_token: notesToken, title: ${literal(title)}, content: names.join('\\n') }));`,
            'Now I write the note.',
          ),
          finish(),
        ],
        check: (context) => {
          const names = allRows<{ name: string }>(
            context.before,
            'SELECT p.name FROM shop_cart_items c JOIN shop_products p ON p.id = c.product_id WHERE c.user_id = ? ORDER BY p.name',
            id,
          ).map((row) => row.name);
          const created = context
            .changes('notes_notes')
            .filter(
              (change) =>
                change.kind === 'added' && change.after?.['user_id'] === id && change.after['title'] === title,
            );
          const lines = String(created[0]?.after?.['content'] ?? '')
            .split('\n')
            .map((line) => line.trim())
            .filter((line) => line !== '')
            .sort();
          context.require('note-created', created.length === 1, `${created.length} note(s) titled "${title}"`);
          context.require(
            'note-lists-cart',
            JSON.stringify(lines) === JSON.stringify(names),
            `expected ${names.join(' | ')}; found ${lines.join(' | ')}`,
          );
          context.allow('notes_notes', (change) => created.includes(change));
        },
      };
    }),
};

const tagPlans = [
  { word: 'recipe', tag: 'favorites', titles: ['Recipe: tomato soup', 'Recipe: oat cookies', 'Recipe: green curry'] },
  { word: 'list', tag: 'review', titles: ['Grocery list', 'Guest list', 'Wish list'] },
  { word: 'ideas', tag: 'later', titles: ['Party ideas', 'Blog ideas', 'Name ideas'] },
] as const;

/** Tagging every note whose title has a word; one has the tag already, so a naive loop stops half way. */
const tagNotes: Scenario = {
  name: 'tag-notes',
  family: 'notes',
  split: 'dev',
  difficulty: 2,
  tags: ['pagination', 'write', 'verification'],
  variants: (db) =>
    pickPeople(db, 'tag-notes', 3).map((id, index) => {
      const { email } = person(db, id);
      const { word, tag, titles } = tagPlans[index] ?? tagPlans[0];
      const matches = `var matching = notes.filter((note) => note.title.toLowerCase().includes(${literal(word)}));\nprint(matching.map((note) => note.title));`;
      return {
        supervisorId: id,
        instruction: `Add the tag "${tag}" to every note of mine whose title contains the word "${word}" (in any letter case).`,
        setup: (world) => {
          // The newest match already has the tag; the other two are old, past the first page.
          titles.forEach((title, offset) => {
            const at = offset === 0 ? '2024-06-10T09:00:00' : `2022-0${offset + 3}-01T09:00:00`;
            insertRow(world, 'notes_notes', {
              user_id: id,
              title,
              content: `${title} notes`,
              tags: offset === 0 ? tag : '',
              pinned: 0,
              created_at: at,
              updated_at: at,
            });
          });
        },
        plan: [
          ...login('notes', email, 'notesToken', true),
          fetchPages([['notes', pagedCall('notes', 'show_notes', 'access_token: notesToken')]], matches),
          withDoc(
            'notes',
            'add_note_tag',
            `apis.notes.add_note_tag({ access_token: notesToken, note_id: matching[0].note_id, tags: [${literal(tag)}] });`,
            [
              act(
                `for (var note of matching) apis.notes.add_note_tag({ access_token: notesToken, note_id: note.note_id, tag: ${literal(tag)} });\nprint('Tagged ' + matching.length + ' notes.');`,
                'I tag each matching note.',
              ),
            ],
          ),
          decide(
            'check-after-write',
            [
              act(
                [
                  `var untagged = matching.filter((note) => !apis.notes.show_note({ access_token: notesToken, note_id: note.note_id }).tags.includes(${literal(tag)}));`,
                  `for (var note of untagged) apis.notes.add_note_tag({ access_token: notesToken, note_id: note.note_id, tag: ${literal(tag)} });`,
                  "print('Tagged ' + untagged.length + ' more notes.');",
                ].join('\n'),
                'Let me check which notes have the tag now and tag the rest.',
              ),
            ],
            [],
          ),
          finish(),
        ],
        check: (context) => {
          const notes = allRows<{ id: number; title: string }>(
            context.before,
            'SELECT id, title FROM notes_notes WHERE user_id = ?',
            id,
          ).filter((note) => note.title.toLowerCase().includes(word));
          const ids = notes.map((note) => note.id);
          const tagged = allRows<{ id: number; tags: string }>(
            context.after,
            'SELECT id, tags FROM notes_notes WHERE user_id = ?',
            id,
          ).filter((note) => ids.includes(note.id) && note.tags.split(',').includes(tag));
          context.require(
            'notes-tagged',
            tagged.length === ids.length,
            `${tagged.length} of ${ids.length} matching notes have the tag`,
          );
          context.allow(
            'notes_notes',
            (change) => change.kind === 'updated' && ids.includes(numberOf(change.after, 'id')),
          );
        },
      };
    }),
};

export const notesScenarios: Scenario[] = [cartToNote, tagNotes];
