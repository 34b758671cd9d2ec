import type { Database } from 'better-sqlite3';
import type { Person } from './person.js';
import { type Draw, daysBefore, worldNow } from './random-helpers.js';
import { insertRow } from './rows.js';
import {
  emailTopics,
  fileTemplates,
  noteTemplates,
  organizations,
  repeatedRelationships,
  textSnippets,
  uniqueRelationships,
} from './vocabulary.js';

/** A person's phone contacts that are other people of the world, with the relationship. */
export type ContactGraph = Map<number, Array<{ personId: number; relationship: string }>>;

const byId = (people: readonly Person[], id: number): Person => {
  const person = people[id - 1];
  if (!person) throw new RangeError(`no person ${id}`);
  return person;
};

/** Phone contacts (14 to 22 other people each) and text messages between contacts. */
export function generatePhone(db: Database, draw: Draw, people: readonly Person[]): ContactGraph {
  const graph: ContactGraph = new Map();
  for (const person of people) {
    const others = draw.shuffle(people.filter((other) => other.id !== person.id));
    const count = draw.int(14, 22);
    const chosen = others.slice(0, count);
    const relationships: string[] = [];
    for (const unique of uniqueRelationships) if (draw.chance(0.75)) relationships.push(unique);
    while (relationships.length < count) {
      // Friends and coworkers dominate, as in anyone's address book.
      relationships.push(draw.chance(0.6) ? draw.pick(['friend', 'coworker']) : draw.pick(repeatedRelationships));
    }
    const links: Array<{ personId: number; relationship: string }> = [];
    chosen.forEach((other, index) => {
      const relationship = relationships[index] ?? 'friend';
      links.push({ personId: other.id, relationship });
      insertRow(db, 'phone_contacts', {
        user_id: person.id,
        first_name: other.firstName,
        last_name: other.lastName,
        phone_number: other.phoneNumber,
        email: other.email,
        relationship,
        birthday: null,
      });
    });
    graph.set(person.id, links);
  }
  for (const person of people) {
    const links = graph.get(person.id) ?? [];
    const texts = draw.int(8, 14);
    for (let index = 0; index < texts; index += 1) {
      const other = byId(people, draw.pick(links).personId);
      const sentAt = daysBefore(worldNow, draw.int(1, 120) + draw.int(0, 23) / 24);
      const message = draw.pick(textSnippets);
      for (const owner of [person.id, other.id]) {
        insertRow(db, 'phone_text_messages', {
          user_id: owner,
          sender: person.phoneNumber,
          receiver: other.phoneNumber,
          message,
          sent_at: sentAt,
        });
      }
    }
  }
  return graph;
}

/** Personal emails between contacts (a copy per mailbox) and newsletters from organizations. */
export function generateMail(db: Database, draw: Draw, people: readonly Person[], graph: ContactGraph): void {
  for (const person of people) {
    const links = graph.get(person.id) ?? [];
    const personal = draw.int(6, 10);
    for (let index = 0; index < personal; index += 1) {
      const other = byId(people, draw.pick(links).personId);
      const [subject, body] = draw.pick(emailTopics);
      const sentAt = daysBefore(worldNow, draw.int(1, 150) + draw.int(0, 23) / 24);
      const common = {
        sender: person.email,
        recipients: other.email,
        subject,
        body,
        sent_at: sentAt,
        reply_to_id: null,
      };
      insertRow(db, 'mail_messages', { user_id: person.id, folder: 'sent', is_read: 1, ...common });
      insertRow(db, 'mail_messages', {
        user_id: other.id,
        folder: 'inbox',
        is_read: draw.chance(0.7) ? 1 : 0,
        ...common,
      });
    }
    const newsletters = draw.int(4, 9);
    for (let index = 0; index < newsletters; index += 1) {
      const organization = draw.pick(organizations);
      insertRow(db, 'mail_messages', {
        user_id: person.id,
        folder: 'inbox',
        sender: `news@${organization.domain}`,
        recipients: person.email,
        subject: `${organization.name}: ${draw.pick(['Your monthly update', 'Reminder', 'New offers', 'Account notice'])}`,
        body: `Hello ${person.firstName}, this is a message from ${organization.name}.`,
        sent_at: daysBefore(worldNow, draw.int(1, 150) + draw.int(0, 23) / 24),
        is_read: draw.chance(0.5) ? 1 : 0,
        reply_to_id: null,
      });
    }
  }
}

/** Notes from templates, some pinned. */
export function generateNotes(db: Database, draw: Draw, people: readonly Person[]): void {
  for (const person of people) {
    for (const [title, content, tags] of draw.sample(noteTemplates, draw.int(6, 10))) {
      const createdAt = daysBefore(worldNow, draw.int(20, 300));
      insertRow(db, 'notes_notes', {
        user_id: person.id,
        title,
        content,
        tags: tags.join(','),
        pinned: draw.chance(0.2) ? 1 : 0,
        created_at: createdAt,
        updated_at: createdAt,
      });
    }
  }
}

/** A file system per person: three top directories and files from templates. */
export function generateFiles(db: Database, draw: Draw, people: readonly Person[]): void {
  for (const person of people) {
    const created = daysBefore(worldNow, draw.int(300, 600));
    for (const directory of ['/', '/documents', '/photos', '/downloads']) {
      insertRow(db, 'files_entries', {
        user_id: person.id,
        path: directory,
        kind: 'directory',
        content: '',
        created_at: created,
        updated_at: created,
      });
    }
    for (const [directory, name, extension] of draw.sample(fileTemplates, draw.int(10, 15))) {
      const at = daysBefore(worldNow, draw.int(1, 280));
      insertRow(db, 'files_entries', {
        user_id: person.id,
        path: `${directory}/${name}.${extension}`,
        kind: 'file',
        content: `${name} (${extension}) of ${person.firstName} ${person.lastName}`,
        created_at: at,
        updated_at: at,
      });
    }
  }
}
