import { insertRow, oneRow } from '../world/rows.js';
import { organizations } from '../world/vocabulary.js';
import { act, fetchPages, finish, login, pagedCall, withDoc } from './plan-steps.js';
import type { Scenario } from './types.js';
import { choose, contactsOf, literal, person, pickPeople } from './world-facts.js';

/** Replying to the latest of several emails from one person. */
const replyLatest: Scenario = {
  name: 'reply-latest',
  family: 'mail',
  split: 'train',
  difficulty: 1,
  tags: ['write'],
  variants: (db) =>
    pickPeople(db, 'reply-latest', 3).map((id, index) => {
      const { email } = person(db, id);
      const sender = choose(contactsOf(db, id, 'friend').concat(contactsOf(db, id, 'coworker')), `reply-latest:${id}`);
      const reply =
        ['Sounds great, I will be there.', 'Thanks, I will take a look tonight.', 'Yes, count me in!'][index] ??
        'Thanks!';
      const subjects = [
        ['Plans for Saturday', 'Saturday, final plan'],
        ['Report draft', 'Report draft v2'],
        ['Hike?', 'Hike on Sunday'],
      ][index] ?? ['Hello', 'Hello again'];
      return {
        supervisorId: id,
        instruction: `Reply to the latest email I received from ${sender.first_name} ${sender.last_name} with the text "${reply}".`,
        setup: (world) => {
          subjects.forEach((subject, offset) => {
            insertRow(world, 'mail_messages', {
              user_id: id,
              folder: 'inbox',
              sender: sender.email,
              recipients: email,
              subject,
              body: `Hi! About ${subject.toLowerCase()}: let me know what you think.`,
              sent_at: `2024-06-1${offset}T08:15:00`,
              is_read: 0,
              reply_to_id: null,
            });
          });
        },
        plan: [
          ...login('mail', email, 'mailToken', true),
          withDoc(
            'mail',
            'show_inbox',
            `var fromThem = apis.mail.show_inbox({ access_token: mailToken, from: ${literal(sender.email)} });`,
            [
              act(
                `var fromThem = apis.mail.show_inbox({ access_token: mailToken, sender: ${literal(sender.email)} });\nvar latest = fromThem[0];\nprint(latest);`,
                `I look for the emails from ${sender.first_name}.`,
              ),
            ],
          ),
          act(
            `print(apis.mail.reply_to_email({ access_token: mailToken, email_id: latest.email_id, body: ${literal(reply)} }));`,
            'Now I reply.',
          ),
          finish(),
        ],
        check: (context) => {
          const latest = oneRow<{ id: number }>(
            context.before,
            "SELECT id FROM mail_messages WHERE user_id = ? AND folder = 'inbox' AND sender = ? ORDER BY sent_at DESC, id DESC LIMIT 1",
            id,
            sender.email,
          );
          const added = context.changes('mail_messages').filter((change) => change.kind === 'added');
          const sent = added.filter(
            (change) =>
              change.after?.['user_id'] === id &&
              change.after['folder'] === 'sent' &&
              change.after['reply_to_id'] === latest?.id &&
              change.after['recipients'] === sender.email &&
              change.after['body'] === reply,
          );
          context.require('reply-sent', sent.length === 1, `${sent.length} matching repl(ies) to email ${latest?.id}`);
          context.allow(
            'mail_messages',
            (change) =>
              change.kind === 'added' &&
              change.after?.['reply_to_id'] === latest?.id &&
              change.after?.['body'] === reply,
          );
        },
      };
    }),
};

/** Counting an organization's emails across every page of the inbox. */
const countDomainEmails: Scenario = {
  name: 'count-domain-emails',
  family: 'mail',
  split: 'dev',
  difficulty: 1,
  tags: ['pagination'],
  variants: (db) =>
    pickPeople(db, 'count-domain-emails', 3).map((id, index) => {
      const { email } = person(db, id);
      const organization = organizations[index + 1] ?? organizations[0];
      return {
        supervisorId: id,
        instruction: `How many emails in my inbox were sent from the ${organization.domain} domain?`,
        setup: (world) => {
          // Old messages from the domain, so some sit past the first page of the inbox.
          for (let offset = 0; offset < 3; offset += 1) {
            insertRow(world, 'mail_messages', {
              user_id: id,
              folder: 'inbox',
              sender: `${['billing', 'events', 'support'][offset]}@${organization.domain}`,
              recipients: email,
              subject: `${organization.name} notice ${offset + 1}`,
              body: 'Please find the details below.',
              sent_at: `2023-0${offset + 2}-11T07:00:00`,
              is_read: 1,
              reply_to_id: null,
            });
          }
        },
        plan: [
          ...login('mail', email, 'mailToken', true),
          withDoc(
            'mail',
            'show_inbox',
            'var inbox = apis.mail.show_inbox({ access_token: mailToken, page: 0, size: 50 });',
            [
              fetchPages(
                [['inbox', pagedCall('mail', 'show_inbox', 'access_token: mailToken')]],
                `var count = inbox.filter((item) => item.sender.endsWith(${literal(`@${organization.domain}`)})).length;\nprint(count);`,
              ),
            ],
          ),
          finish('count'),
        ],
        check: (context) => {
          const count = oneRow<{ count: number }>(
            context.before,
            "SELECT COUNT(*) AS count FROM mail_messages WHERE user_id = ? AND folder = 'inbox' AND sender LIKE ?",
            id,
            `%@${organization.domain}`,
          );
          context.expectAnswer(count?.count ?? 0);
        },
      };
    }),
};

/** Emailing a note's content to a relative: notes, phone and mail together. */
const emailNoteToRelative: Scenario = {
  name: 'email-note-to-relative',
  family: 'mail',
  split: 'test',
  difficulty: 2,
  tags: ['multi-app'],
  variants: (db) =>
    (['partner', 'father', 'roommate'] as const).map((relationship) => {
      const [id] = pickPeople(
        db,
        `email-note-to-relative:${relationship}`,
        1,
        (candidate) =>
          contactsOf(db, candidate, relationship).length === 1 &&
          oneRow(db, 'SELECT 1 FROM notes_notes WHERE user_id = ?', candidate) !== undefined,
      );
      const supervisorId = id ?? 1;
      const { email, phone_number } = person(db, supervisorId);
      const relative = contactsOf(db, supervisorId, relationship)[0];
      const note = oneRow<{ id: number; title: string; content: string }>(
        db,
        'SELECT id, title, content FROM notes_notes WHERE user_id = ? ORDER BY id LIMIT 1',
        supervisorId,
      ) ?? { id: 0, title: '', content: '' };
      return {
        supervisorId,
        instruction: `Email the content of my note titled "${note.title}" to my ${relationship}, with the note's title as the subject.`,
        plan: [
          ...login('notes', email, 'notesToken', true),
          withDoc(
            'notes',
            'show_notes',
            `var found = apis.notes.show_notes({ access_token: notesToken, title: ${literal(note.title)} });`,
            [
              act(
                `var found = apis.notes.show_notes({ access_token: notesToken, query: ${literal(note.title)} });\nvar note = apis.notes.show_note({ access_token: notesToken, note_id: found.find((item) => item.title === ${literal(note.title)}).note_id });\nprint(note.content);`,
                'I find the note.',
              ),
            ],
          ),
          ...login('phone', phone_number, 'phoneToken'),
          act(
            `var relative = apis.phone.show_contacts({ access_token: phoneToken, relationship: ${literal(relationship)} })[0];\nprint(relative);`,
            `I look up my ${relationship}.`,
          ),
          ...login('mail', email, 'mailToken'),
          act(
            'print(apis.mail.send_email({ access_token: mailToken, recipients: [relative.email], subject: note.title, body: note.content }));',
            'Now I send the email.',
          ),
          finish(),
        ],
        check: (context) => {
          const sent = context
            .changes('mail_messages')
            .filter(
              (change) =>
                change.kind === 'added' &&
                change.after?.['sender'] === email &&
                change.after['recipients'] === relative?.email &&
                change.after['subject'] === note.title &&
                change.after['body'] === note.content,
            );
          context.require(
            'email-sent',
            sent.some((change) => change.after?.['folder'] === 'sent'),
            `${sent.length} matching message(s)`,
          );
          context.allow('mail_messages', (change) => sent.includes(change));
        },
      };
    }),
};

export const mailScenarios: Scenario[] = [replyLatest, countDomainEmails, emailNoteToRelative];
