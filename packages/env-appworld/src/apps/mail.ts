import { type ApiCall, ApiError, defineApp, pageParameters, param } from '../api/definition.js';
import { found, maybe, num, pageOf, text } from '../api/helpers.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { accountApis } from './account-apis.js';

interface MessageRow {
  id: number;
  folder: string;
  sender: string;
  recipients: string;
  subject: string;
  body: string;
  sent_at: string;
  is_read: number;
  reply_to_id: number | null;
}

const summary = (row: MessageRow) => ({
  email_id: row.id,
  sender: row.sender,
  recipients: row.recipients.split(','),
  subject: row.subject,
  sent_at: row.sent_at,
  is_read: row.is_read === 1,
});
const summaryExample = {
  email_id: 1,
  sender: 'string',
  recipients: ['string'],
  subject: 'string',
  sent_at: 'YYYY-MM-DDTHH:MM:SS',
  is_read: true,
};

const ownMessage = (call: ApiCall): MessageRow =>
  found(
    oneRow<MessageRow>(
      call.db,
      'SELECT * FROM mail_messages WHERE id = ? AND user_id = ?',
      num(call.args, 'email_id'),
      call.userId,
    ),
    'Email',
  );

const ownAddress = (call: ApiCall): string =>
  oneRow<{ email: string }>(call.db, "SELECT email FROM accounts WHERE app = 'mail' AND user_id = ?", call.userId)
    ?.email ?? '';

/** Stores the sender's copy and one inbox copy per recipient who has a mail account. */
function deliver(
  call: ApiCall,
  recipients: readonly string[],
  subject: string,
  body: string,
  replyTo: number | null,
): number {
  const common = {
    sender: ownAddress(call),
    recipients: recipients.join(','),
    subject,
    body,
    sent_at: call.task.now,
    reply_to_id: replyTo,
  };
  const id = insertRow(call.db, 'mail_messages', { user_id: call.userId, folder: 'sent', is_read: 1, ...common });
  for (const recipient of new Set(recipients)) {
    const account = oneRow<{ user_id: number }>(
      call.db,
      "SELECT user_id FROM accounts WHERE app = 'mail' AND email = ?",
      recipient,
    );
    if (account)
      insertRow(call.db, 'mail_messages', { user_id: account.user_id, folder: 'inbox', is_read: 0, ...common });
  }
  return id;
}

function listFolder(call: ApiCall, folder: string) {
  const query = `%${text(call.args, 'query').toLowerCase()}%`;
  const sender = maybe<string>(call.args, 'sender');
  const onlyUnread = call.args['only_unread'] === true;
  return pageOf(
    allRows<MessageRow>(
      call.db,
      `SELECT * FROM mail_messages WHERE user_id = ? AND folder = ?
         AND (lower(subject) LIKE ? OR lower(body) LIKE ?) AND (? IS NULL OR sender = ?) AND (? = 0 OR is_read = 0)
       ORDER BY sent_at DESC, id DESC`,
      call.userId,
      folder,
      query,
      query,
      sender,
      sender,
      onlyUnread ? 1 : 0,
    ).map(summary),
    call.args,
  );
}

const searchParameters = [
  param.optional('query', 'string', 'Words to look for in the subject or body.', ''),
  param.optional('sender', 'string', 'Only emails from this exact address.', null, { nullable: true }),
  param.optional('only_unread', 'boolean', 'Only unread emails.', false),
  ...pageParameters(['sent_at', 'subject', 'sender']),
];

/** An email app: inbox, sent mail, sending, replying. */
export const mailApp = defineApp('mail', 'An email app: read your inbox and sent mail, send and reply to emails.', [
  ...accountApis('mail', { username: 'email', resetChannel: 'text' }),
  {
    name: 'show_inbox',
    method: 'GET',
    description: 'Show the emails in your inbox, newest first (without their bodies; see show_email).',
    parameters: searchParameters,
    responseExample: [summaryExample],
    handler: (call) => listFolder(call, 'inbox'),
  },
  {
    name: 'show_sent_emails',
    method: 'GET',
    description: 'Show the emails you sent, newest first (without their bodies).',
    parameters: searchParameters,
    responseExample: [summaryExample],
    handler: (call) => listFolder(call, 'sent'),
  },
  {
    name: 'show_email',
    method: 'GET',
    description: 'Show one of your emails with its body.',
    parameters: [param.required('email_id', 'integer', 'The id of the email.')],
    responseExample: { ...summaryExample, body: 'string', folder: 'inbox | sent', reply_to_id: null },
    handler: (call) => {
      const row = ownMessage(call);
      return { ...summary(row), body: row.body, folder: row.folder, reply_to_id: row.reply_to_id };
    },
  },
  {
    name: 'send_email',
    method: 'POST',
    description: 'Send an email.',
    parameters: [
      param.required('recipients', 'list[string]', 'The email addresses to send to.', { minLength: 1 }),
      param.required('subject', 'string', 'The subject line.', { minLength: 1 }),
      param.optional('body', 'string', 'The text of the email.', ''),
    ],
    responseExample: { message: 'string', email_id: 1 },
    handler: (call) => {
      const recipients = call.args['recipients'] as string[];
      for (const recipient of recipients) {
        if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(recipient))
          throw new ApiError(422, `Invalid email address '${recipient}'.`);
      }
      const id = deliver(call, recipients, text(call.args, 'subject'), text(call.args, 'body'), null);
      return { message: 'Email sent.', email_id: id };
    },
  },
  {
    name: 'reply_to_email',
    method: 'POST',
    description: 'Reply to an email in your inbox: the reply goes to its sender, with "Re: " before the subject.',
    parameters: [
      param.required('email_id', 'integer', 'The id of the email to reply to.'),
      param.required('body', 'string', 'The text of the reply.', { minLength: 1 }),
    ],
    responseExample: { message: 'string', email_id: 1 },
    handler: (call) => {
      const original = ownMessage(call);
      if (original.folder !== 'inbox') throw new ApiError(422, 'You can only reply to emails in your inbox.');
      const subject = original.subject.startsWith('Re: ') ? original.subject : `Re: ${original.subject}`;
      const id = deliver(call, [original.sender], subject, text(call.args, 'body'), original.id);
      return { message: 'Reply sent.', email_id: id };
    },
  },
  {
    name: 'delete_email',
    method: 'DELETE',
    description: 'Delete one of your emails.',
    parameters: [param.required('email_id', 'integer', 'The id of the email.')],
    responseExample: { message: 'string' },
    handler: (call) => {
      run(call.db, 'DELETE FROM mail_messages WHERE id = ?', ownMessage(call).id);
      return { message: 'Email deleted.' };
    },
  },
  {
    name: 'mark_email_read',
    method: 'PATCH',
    description: 'Mark one of your emails as read or unread.',
    parameters: [
      param.required('email_id', 'integer', 'The id of the email.'),
      param.optional('is_read', 'boolean', 'True for read, false for unread.', true),
    ],
    responseExample: { message: 'string' },
    handler: (call) => {
      run(
        call.db,
        'UPDATE mail_messages SET is_read = ? WHERE id = ?',
        call.args['is_read'] ? 1 : 0,
        ownMessage(call).id,
      );
      return { message: 'Email updated.' };
    },
  },
]);
