import { type ApiCall, ApiError, type ApiInput, param } from '../api/definition.js';
import { found, text } from '../api/helpers.js';
import { passwordHash } from '../world/random-helpers.js';
import { insertRow, oneRow, run } from '../world/rows.js';
import { systemSender, systemTextNumber } from '../world/schema.js';

/** How an app identifies people at login and where it sends password reset codes. */
export interface AccountOptions {
  /** What `login` takes as `username`: the email address, or (the phone app) the phone number. */
  username: 'email' | 'phone_number';
  /** Where reset codes go: an email to the person's mail inbox, or a text message to their phone. */
  resetChannel: 'email' | 'text';
}

interface AccountRow {
  user_id: number;
  email: string;
  phone_number: string;
  password_hash: string;
  registered_at: string;
}

function deliverResetCode(
  call: ApiCall,
  app: string,
  account: AccountRow,
  code: string,
  channel: 'email' | 'text',
): void {
  if (channel === 'email') {
    insertRow(call.db, 'mail_messages', {
      user_id: account.user_id,
      folder: 'inbox',
      sender: systemSender(app),
      recipients: account.email,
      subject: `Your ${app} password reset code`,
      body: `Use the code ${code} to reset your ${app} password. It is valid for 30 minutes.`,
      sent_at: call.task.now,
      is_read: 0,
      reply_to_id: null,
    });
  } else {
    insertRow(call.db, 'phone_text_messages', {
      user_id: account.user_id,
      sender: systemTextNumber,
      receiver: account.phone_number,
      message: `Your ${app} password reset code is ${code}. Do not share it.`,
      sent_at: call.task.now,
    });
  }
}

/** login, logout, show_account, send_password_reset_code and reset_password for one app. */
export function accountApis(app: string, options: AccountOptions): ApiInput[] {
  const byUsername = (call: ApiCall, username: string): AccountRow | undefined =>
    oneRow<AccountRow>(call.db, `SELECT * FROM accounts WHERE app = ? AND ${options.username} = ?`, app, username);
  const byEmail = (call: ApiCall, email: string): AccountRow =>
    found(
      oneRow<AccountRow>(call.db, 'SELECT * FROM accounts WHERE app = ? AND email = ?', app, email),
      'Account with this email',
    );
  const usernameText = options.username === 'email' ? 'your email address' : 'your phone number';
  const channelText = options.resetChannel === 'email' ? 'an email to your mail inbox' : 'a text message to your phone';
  return [
    {
      name: 'login',
      method: 'POST',
      description: `Log in to your ${app} account and get an access token for the other APIs.`,
      authenticated: false,
      parameters: [
        param.required('username', 'string', `Your ${app} username: ${usernameText}.`),
        param.required('password', 'string', `Your ${app} password.`),
      ],
      responseExample: { access_token: 'string', token_type: 'Bearer' },
      handler: (call) => {
        const account = byUsername(call, text(call.args, 'username'));
        if (!account || account.password_hash !== passwordHash(app, account.user_id, text(call.args, 'password'))) {
          throw new ApiError(401, 'Invalid credentials.');
        }
        const token = call.nextSecret('token');
        insertRow(call.db, 'access_tokens', { token, app, user_id: account.user_id, created_at: call.task.now });
        return { access_token: token, token_type: 'Bearer' };
      },
    },
    {
      name: 'logout',
      method: 'DELETE',
      description: `Log out of ${app}: the access token stops working.`,
      parameters: [],
      responseExample: { message: 'string' },
      handler: (call) => {
        run(call.db, 'DELETE FROM access_tokens WHERE token = ?', text(call.args, 'access_token'));
        return { message: 'Successfully logged out.' };
      },
    },
    {
      name: 'show_account',
      method: 'GET',
      description: `Show your ${app} account: name, email, phone number and when you registered.`,
      parameters: [],
      responseExample: {
        first_name: 'string',
        last_name: 'string',
        email: 'string',
        phone_number: 'string',
        registered_at: 'string',
      },
      handler: (call) =>
        oneRow(
          call.db,
          `SELECT p.first_name, p.last_name, a.email, a.phone_number, a.registered_at
           FROM accounts a JOIN people p ON p.id = a.user_id WHERE a.app = ? AND a.user_id = ?`,
          app,
          call.userId,
        ),
    },
    {
      name: 'send_password_reset_code',
      method: 'POST',
      description: `Send a password reset code for your ${app} account, by ${channelText}. A new code replaces the old one.`,
      authenticated: false,
      parameters: [param.required('email', 'string', `The email address of your ${app} account.`)],
      responseExample: { message: 'string' },
      handler: (call) => {
        const account = byEmail(call, text(call.args, 'email'));
        const code = call.nextSecret('code');
        run(
          call.db,
          'INSERT OR REPLACE INTO password_reset_codes (app, user_id, code, created_at) VALUES (?, ?, ?, ?)',
          app,
          account.user_id,
          code,
          call.task.now,
        );
        deliverResetCode(call, app, account, code, options.resetChannel);
        return {
          message: `A password reset code has been sent by ${options.resetChannel === 'email' ? 'email' : 'text message'}.`,
        };
      },
    },
    {
      name: 'reset_password',
      method: 'POST',
      description: `Set a new ${app} password using the code from send_password_reset_code. Logs out every session.`,
      authenticated: false,
      parameters: [
        param.required('email', 'string', `The email address of your ${app} account.`),
        param.required('password_reset_code', 'string', 'The code you received.'),
        param.required('new_password', 'string', 'The new password.', { minLength: 8 }),
      ],
      responseExample: { message: 'string' },
      handler: (call) => {
        const account = byEmail(call, text(call.args, 'email'));
        const stored = oneRow<{ code: string }>(
          call.db,
          'SELECT code FROM password_reset_codes WHERE app = ? AND user_id = ?',
          app,
          account.user_id,
        );
        if (!stored || stored.code !== text(call.args, 'password_reset_code')) {
          throw new ApiError(401, 'Invalid password reset code.');
        }
        run(
          call.db,
          'UPDATE accounts SET password_hash = ? WHERE app = ? AND user_id = ?',
          passwordHash(app, account.user_id, text(call.args, 'new_password')),
          app,
          account.user_id,
        );
        run(call.db, 'DELETE FROM password_reset_codes WHERE app = ? AND user_id = ?', app, account.user_id);
        run(call.db, 'DELETE FROM access_tokens WHERE app = ? AND user_id = ?', app, account.user_id);
        return { message: 'Your password has been reset.' };
      },
    },
  ];
}
