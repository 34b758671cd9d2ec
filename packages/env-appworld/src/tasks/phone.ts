import { numberOf } from '../evaluation/check-context.js';
import { insertRow, oneRow } from '../world/rows.js';
import { act, fetchPages, finish, login, pagedCall, withDoc } from './plan-steps.js';
import type { Scenario } from './types.js';
import { choose, contactsOf, literal, person, pickPeople } from './world-facts.js';

const textPlans = [
  { relationship: 'friend', message: 'Game night at my place on Friday at 8!' },
  { relationship: 'coworker', message: 'Reminder: the team offsite starts at 9 tomorrow.' },
  { relationship: 'friend', message: 'I moved! New address coming by email.' },
] as const;

/** Texting every contact with one relationship: the list spans several pages. */
const textRelationship: Scenario = {
  name: 'text-relationship',
  family: 'phone',
  split: 'dev',
  difficulty: 2,
  tags: ['pagination', 'write'],
  variants: (db) =>
    textPlans.map(({ relationship, message }, index) => {
      const [id] = pickPeople(
        db,
        `text-relationship:${index}`,
        1,
        (candidate) => contactsOf(db, candidate, relationship).length >= 6,
      );
      const supervisorId = id ?? 1;
      const { phone_number } = person(db, supervisorId);
      return {
        supervisorId,
        instruction: `Send the text message "${message}" to every contact of mine whose relationship is "${relationship}".`,
        plan: [
          ...login('phone', phone_number, 'phoneToken', true),
          withDoc(
            'phone',
            'show_contacts',
            `var contacts = apis.phone.show_contacts({ access_token: phoneToken, relation: ${literal(relationship)} });`,
            [
              fetchPages(
                [
                  [
                    'contacts',
                    pagedCall(
                      'phone',
                      'show_contacts',
                      `access_token: phoneToken, relationship: ${literal(relationship)}`,
                    ),
                  ],
                ],
                "print(contacts.length + ' contacts');",
              ),
            ],
          ),
          act(
            `for (var contact of contacts) apis.phone.send_text_message({ access_token: phoneToken, phone_number: contact.phone_number, message: ${literal(message)} });\nprint('Sent ' + contacts.length + ' messages.');`,
            'Now I text each of them.',
          ),
          finish(),
        ],
        check: (context) => {
          const numbers = contactsOf(context.before, supervisorId, relationship).map((contact) => contact.phone_number);
          const sent = context
            .changes('phone_text_messages')
            .filter(
              (change) =>
                change.kind === 'added' &&
                change.after?.['user_id'] === supervisorId &&
                change.after['message'] === message,
            );
          const reached = new Set(sent.map((change) => String(change.after?.['receiver'])));
          const missing = numbers.filter((number) => !reached.has(number));
          context.require('everyone-texted', missing.length === 0, `${missing.length} of ${numbers.length} not texted`);
          context.require(
            'texted-once-each',
            sent.length === numbers.length,
            `${sent.length} messages for ${numbers.length} contacts`,
          );
          context.allow(
            'phone_text_messages',
            (change) =>
              change.kind === 'added' &&
              change.after?.['message'] === message &&
              numbers.includes(String(change.after['receiver'])),
          );
        },
      };
    }),
};

/** Updating a contact's number from an email they sent. */
const updateContactFromEmail: Scenario = {
  name: 'update-contact-from-email',
  family: 'phone',
  split: 'train',
  difficulty: 2,
  tags: ['multi-app', 'write'],
  variants: (db) =>
    pickPeople(db, 'update-contact-from-email', 3).map((id, index) => {
      const { email, phone_number } = person(db, id);
      const contact = choose(contactsOf(db, id, 'friend').concat(contactsOf(db, id, 'cousin')), `update-contact:${id}`);
      const newNumber = ['+1 412 555 0199', '+1 646 555 0142', '+1 503 555 0177'][index] ?? '+1 412 555 0199';
      return {
        supervisorId: id,
        instruction: `${contact.first_name} ${contact.last_name} emailed me their new phone number. Update their phone number in my phone contacts.`,
        setup: (world) =>
          insertRow(world, 'mail_messages', {
            user_id: id,
            folder: 'inbox',
            sender: contact.email,
            recipients: email,
            subject: 'My new number',
            body: `Hi! I switched carriers. My new phone number is ${newNumber}. Please update it.`,
            sent_at: '2024-06-13T19:45:00',
            is_read: 0,
            reply_to_id: null,
          }),
        plan: [
          ...login('mail', email, 'mailToken', true),
          act(
            [
              `var fromThem = apis.mail.show_inbox({ access_token: mailToken, sender: ${literal(contact.email)} });`,
              'var message = apis.mail.show_email({ access_token: mailToken, email_id: fromThem[0].email_id });',
              'var newNumber = message.body.match(/\\+1 \\d{3} \\d{3} \\d{4}/)[0];',
              'print(newNumber);',
            ].join('\n'),
            `I read ${contact.first_name}'s email.`,
          ),
          ...login('phone', phone_number, 'phoneToken'),
          act(
            `var matches = apis.phone.show_contacts({ access_token: phoneToken, query: ${literal(`${contact.first_name} ${contact.last_name}`)} });\nvar contact = matches[0];\nprint(contact);`,
            'I find the contact.',
          ),
          withDoc(
            'phone',
            'update_contact',
            'apis.phone.update_contact({ access_token: phoneToken, contact_id: contact.contact_id, phone: newNumber });',
            [
              act(
                'print(apis.phone.update_contact({ access_token: phoneToken, contact_id: contact.contact_id, phone_number: newNumber }));',
              ),
            ],
          ),
          finish(),
        ],
        check: (context) => {
          const row = oneRow<{ id: number }>(
            context.before,
            'SELECT id FROM phone_contacts WHERE user_id = ? AND email = ?',
            id,
            contact.email,
          );
          const after = oneRow<{ phone_number: string }>(
            context.after,
            'SELECT phone_number FROM phone_contacts WHERE id = ?',
            row?.id ?? -1,
          );
          context.require(
            'number-updated',
            after?.phone_number === newNumber,
            `phone number is ${after?.phone_number}`,
          );
          context.allow(
            'phone_contacts',
            (change) => change.kind === 'updated' && numberOf(change.after, 'id') === row?.id,
          );
        },
      };
    }),
};

export const phoneScenarios: Scenario[] = [textRelationship, updateContactFromEmail];
