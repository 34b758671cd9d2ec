import { type ApiCall, ApiError, defineApp, pageParameters, param } from '../api/definition.js';
import { found, maybe, num, pageOf, text } from '../api/helpers.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { accountApis } from './account-apis.js';

const contactColumns = 'id AS contact_id, first_name, last_name, phone_number, email, relationship, birthday';
const contactExample = {
  contact_id: 1,
  first_name: 'string',
  last_name: 'string',
  phone_number: 'string',
  email: 'string | null',
  relationship: 'string',
  birthday: 'YYYY-MM-DD | null',
};
const messageExample = {
  text_message_id: 1,
  sender: 'string',
  receiver: 'string',
  message: 'string',
  sent_at: 'string',
};
const messageColumns = 'id AS text_message_id, sender, receiver, message, sent_at';

const ownContact = (call: ApiCall) =>
  found(
    oneRow<Record<string, unknown>>(
      call.db,
      `SELECT ${contactColumns} FROM phone_contacts WHERE id = ? AND user_id = ?`,
      num(call.args, 'contact_id'),
      call.userId,
    ),
    'Contact',
  );

const ownNumber = (call: ApiCall): string =>
  oneRow<{ phone_number: string }>(
    call.db,
    "SELECT phone_number FROM accounts WHERE app = 'phone' AND user_id = ?",
    call.userId,
  )?.phone_number ?? '';

const relationships = [
  'friend',
  'coworker',
  'sibling',
  'cousin',
  'neighbor',
  'mother',
  'father',
  'partner',
  'roommate',
  'manager',
  'other',
];
const contactFields = [
  param.optional('email', 'string', 'Email address.', null, { nullable: true }),
  param.optional('relationship', 'string', 'How you know them.', null, { nullable: true, choices: relationships }),
  param.optional('birthday', 'string', 'Birthday as YYYY-MM-DD.', null, { nullable: true }),
];

/** A phone: contacts and text messages. */
export const phoneApp = defineApp('phone', 'Your phone: contacts (family, friends, coworkers) and text messages.', [
  ...accountApis('phone', { username: 'phone_number', resetChannel: 'email' }),
  {
    name: 'show_contacts',
    method: 'GET',
    description: 'Show your contacts, by last name; search by name, filter by relationship.',
    parameters: [
      param.optional('query', 'string', 'Words of the first or last name.', ''),
      param.optional('relationship', 'string', 'Only contacts with this relationship.', null, {
        nullable: true,
        choices: relationships,
      }),
      ...pageParameters(['first_name', 'last_name', 'relationship']),
    ],
    responseExample: [contactExample],
    handler: (call) => {
      const relationship = maybe<string>(call.args, 'relationship');
      return pageOf(
        allRows(
          call.db,
          `SELECT ${contactColumns} FROM phone_contacts WHERE user_id = ?
             AND lower(first_name || ' ' || last_name) LIKE ? AND (? IS NULL OR relationship = ?)
           ORDER BY last_name, first_name, id`,
          call.userId,
          `%${text(call.args, 'query').toLowerCase()}%`,
          relationship,
          relationship,
        ),
        call.args,
      );
    },
  },
  {
    name: 'show_contact',
    method: 'GET',
    description: 'Show one contact.',
    parameters: [param.required('contact_id', 'integer', 'The id of the contact.')],
    responseExample: contactExample,
    handler: (call) => ownContact(call),
  },
  {
    name: 'add_contact',
    method: 'POST',
    description: 'Add a contact.',
    parameters: [
      param.required('first_name', 'string', 'First name.', { minLength: 1 }),
      param.required('last_name', 'string', 'Last name.', { minLength: 1 }),
      param.required('phone_number', 'string', 'Phone number.', { minLength: 3 }),
      ...contactFields,
    ],
    responseExample: { message: 'string', contact_id: 1 },
    handler: (call) => {
      const phoneNumber = text(call.args, 'phone_number');
      if (
        oneRow(call.db, 'SELECT 1 FROM phone_contacts WHERE user_id = ? AND phone_number = ?', call.userId, phoneNumber)
      ) {
        throw new ApiError(409, 'A contact with this phone number already exists.');
      }
      const id = insertRow(call.db, 'phone_contacts', {
        user_id: call.userId,
        first_name: text(call.args, 'first_name'),
        last_name: text(call.args, 'last_name'),
        phone_number: phoneNumber,
        email: maybe<string>(call.args, 'email'),
        relationship: maybe<string>(call.args, 'relationship') ?? 'other',
        birthday: maybe<string>(call.args, 'birthday'),
      });
      return { message: 'Contact added.', contact_id: id };
    },
  },
  {
    name: 'update_contact',
    method: 'PATCH',
    description: 'Change fields of a contact; parameters left out stay as they are.',
    parameters: [
      param.required('contact_id', 'integer', 'The id of the contact.'),
      param.optional('first_name', 'string', 'First name.', null, { nullable: true, minLength: 1 }),
      param.optional('last_name', 'string', 'Last name.', null, { nullable: true, minLength: 1 }),
      param.optional('phone_number', 'string', 'Phone number.', null, { nullable: true, minLength: 3 }),
      ...contactFields,
    ],
    responseExample: { message: 'string' },
    handler: (call) => {
      const contact = ownContact(call);
      const fields = ['first_name', 'last_name', 'phone_number', 'email', 'relationship', 'birthday'];
      const values = fields.map((field) => call.args[field] ?? contact[field] ?? null);
      run(
        call.db,
        `UPDATE phone_contacts SET ${fields.map((field) => `${field} = ?`).join(', ')} WHERE id = ?`,
        ...values,
        contact['contact_id'],
      );
      return { message: 'Contact updated.' };
    },
  },
  {
    name: 'delete_contact',
    method: 'DELETE',
    description: 'Delete a contact.',
    parameters: [param.required('contact_id', 'integer', 'The id of the contact.')],
    responseExample: { message: 'string' },
    handler: (call) => {
      run(call.db, 'DELETE FROM phone_contacts WHERE id = ?', ownContact(call)['contact_id']);
      return { message: 'Contact deleted.' };
    },
  },
  {
    name: 'show_text_messages',
    method: 'GET',
    description: 'Show your text messages, newest first; only those with one phone number when given.',
    parameters: [
      param.optional('phone_number', 'string', 'Only messages sent to or received from this number.', null, {
        nullable: true,
      }),
      param.optional('query', 'string', 'Words to look for in the message.', ''),
      ...pageParameters(['sent_at']),
    ],
    responseExample: [messageExample],
    handler: (call) => {
      const other = maybe<string>(call.args, 'phone_number');
      return pageOf(
        allRows(
          call.db,
          `SELECT ${messageColumns} FROM phone_text_messages WHERE user_id = ? AND (? IS NULL OR sender = ? OR receiver = ?)
             AND lower(message) LIKE ? ORDER BY sent_at DESC, id DESC`,
          call.userId,
          other,
          other,
          other,
          `%${text(call.args, 'query').toLowerCase()}%`,
        ),
        call.args,
      );
    },
  },
  {
    name: 'show_text_message',
    method: 'GET',
    description: 'Show one text message.',
    parameters: [param.required('text_message_id', 'integer', 'The id of the message.')],
    responseExample: messageExample,
    handler: (call) =>
      found(
        oneRow(
          call.db,
          `SELECT ${messageColumns} FROM phone_text_messages WHERE id = ? AND user_id = ?`,
          num(call.args, 'text_message_id'),
          call.userId,
        ),
        'Text message',
      ),
  },
  {
    name: 'send_text_message',
    method: 'POST',
    description: 'Send a text message to a phone number.',
    parameters: [
      param.required('phone_number', 'string', 'The number to send to.', { minLength: 3 }),
      param.required('message', 'string', 'The text.', { minLength: 1 }),
    ],
    responseExample: { message: 'string', text_message_id: 1 },
    handler: (call) => {
      const receiver = text(call.args, 'phone_number');
      const row = { sender: ownNumber(call), receiver, message: text(call.args, 'message'), sent_at: call.task.now };
      const id = insertRow(call.db, 'phone_text_messages', { user_id: call.userId, ...row });
      const account = oneRow<{ user_id: number }>(
        call.db,
        "SELECT user_id FROM accounts WHERE app = 'phone' AND phone_number = ?",
        receiver,
      );
      if (account) insertRow(call.db, 'phone_text_messages', { user_id: account.user_id, ...row });
      return { message: 'Text message sent.', text_message_id: id };
    },
  },
]);
