import { type ApiCall, ApiError, defineApp, pageParameters, param } from '../api/definition.js';
import { cents, found, maybe, num, pageOf, text } from '../api/helpers.js';
import { allRows, insertRow, oneRow, run } from '../world/rows.js';
import { accountApis } from './account-apis.js';

const person = (alias: string, id: string) =>
  `(SELECT first_name || ' ' || last_name FROM people WHERE id = ${alias}.${id}) AS ${id.replace('_id', '')}_name,
   (SELECT email FROM people WHERE id = ${alias}.${id}) AS ${id.replace('_id', '')}_email`;

const transactionExample = {
  transaction_id: 1,
  sender_name: 'string',
  sender_email: 'string',
  receiver_name: 'string',
  receiver_email: 'string',
  amount: 1.5,
  description: 'string',
  created_at: 'YYYY-MM-DDTHH:MM:SS',
};
const requestExample = {
  payment_request_id: 1,
  requester_name: 'string',
  requester_email: 'string',
  payer_name: 'string',
  payer_email: 'string',
  amount: 1.5,
  description: 'string',
  status: 'pending | approved | denied',
  created_at: 'string',
};

const balanceOf = (call: ApiCall, userId: number): number =>
  oneRow<{ balance: number }>(call.db, 'SELECT balance FROM wallet_balances WHERE user_id = ?', userId)?.balance ?? 0;

/** Moves money between two wallets and records the transaction; 422 when the sender has too little. */
function transfer(call: ApiCall, senderId: number, receiverId: number, amount: number, description: string): number {
  if (balanceOf(call, senderId) < amount) throw new ApiError(422, 'Insufficient balance for this payment.');
  run(call.db, 'UPDATE wallet_balances SET balance = round(balance - ?, 2) WHERE user_id = ?', amount, senderId);
  run(call.db, 'UPDATE wallet_balances SET balance = round(balance + ?, 2) WHERE user_id = ?', amount, receiverId);
  return insertRow(call.db, 'wallet_transactions', {
    sender_id: senderId,
    receiver_id: receiverId,
    amount,
    description,
    created_at: call.task.now,
  });
}

/** The wallet user with this email, not the caller. */
function otherUser(call: ApiCall, email: string): number {
  const row = found(
    oneRow<{ user_id: number }>(call.db, "SELECT user_id FROM accounts WHERE app = 'wallet' AND email = ?", email),
    'Wallet user with this email',
  );
  if (row.user_id === call.userId) throw new ApiError(422, 'You cannot send money to or request money from yourself.');
  return row.user_id;
}

function pendingRequest(call: ApiCall): { id: number; requester_id: number; amount: number; description: string } {
  const request = found(
    oneRow<{ id: number; requester_id: number; amount: number; description: string; status: string }>(
      call.db,
      'SELECT * FROM wallet_payment_requests WHERE id = ? AND payer_id = ?',
      num(call.args, 'payment_request_id'),
      call.userId,
    ),
    'Payment request',
  );
  if (request.status !== 'pending') throw new ApiError(409, `The payment request is already ${request.status}.`);
  return request;
}

/** A wallet app for sending money to people and settling payment requests. */
export const walletApp = defineApp(
  'wallet',
  'A wallet app: send money to people, request money, settle payment requests.',
  [
    ...accountApis('wallet', { username: 'email', resetChannel: 'text' }),
    {
      name: 'show_balance',
      method: 'GET',
      description: 'Show your wallet balance.',
      parameters: [],
      responseExample: { balance: 1.5 },
      handler: (call) => ({ balance: balanceOf(call, call.userId) }),
    },
    {
      name: 'show_transactions',
      method: 'GET',
      description: 'Show your transactions, newest first; filter by direction and by date (inclusive bounds).',
      parameters: [
        param.optional('direction', 'string', 'Only "sent" or only "received" transactions; all when null.', null, {
          nullable: true,
          choices: ['sent', 'received'],
        }),
        param.optional(
          'min_created_at',
          'string',
          'Only transactions at or after this time (YYYY-MM-DD[THH:MM:SS]).',
          null,
          {
            nullable: true,
          },
        ),
        param.optional(
          'max_created_at',
          'string',
          'Only transactions at or before this time (YYYY-MM-DD[THH:MM:SS]).',
          null,
          {
            nullable: true,
          },
        ),
        ...pageParameters(['created_at', 'amount']),
      ],
      responseExample: [transactionExample],
      handler: (call) => {
        const direction = maybe<string>(call.args, 'direction');
        const minimum = maybe<string>(call.args, 'min_created_at') ?? '0000';
        // A bare date as the upper bound includes that whole day.
        const maximumText = maybe<string>(call.args, 'max_created_at');
        const maximum =
          maximumText === null ? '9999' : maximumText.length === 10 ? `${maximumText}T23:59:59` : maximumText;
        return pageOf(
          allRows(
            call.db,
            `SELECT t.id AS transaction_id, ${person('t', 'sender_id')}, ${person('t', 'receiver_id')}, t.amount, t.description, t.created_at
           FROM wallet_transactions t
           WHERE ((? IN ('all', 'sent') AND t.sender_id = ?) OR (? IN ('all', 'received') AND t.receiver_id = ?))
             AND t.created_at >= ? AND t.created_at <= ?
           ORDER BY t.created_at DESC, t.id DESC`,
            direction ?? 'all',
            call.userId,
            direction ?? 'all',
            call.userId,
            minimum,
            maximum,
          ),
          call.args,
        );
      },
    },
    {
      name: 'show_transaction',
      method: 'GET',
      description: 'Show one of your transactions.',
      parameters: [param.required('transaction_id', 'integer', 'The id of the transaction.')],
      responseExample: transactionExample,
      handler: (call) =>
        found(
          oneRow(
            call.db,
            `SELECT t.id AS transaction_id, ${person('t', 'sender_id')}, ${person('t', 'receiver_id')}, t.amount, t.description, t.created_at
           FROM wallet_transactions t WHERE t.id = ? AND (t.sender_id = ? OR t.receiver_id = ?)`,
            num(call.args, 'transaction_id'),
            call.userId,
            call.userId,
          ),
          'Transaction',
        ),
    },
    {
      name: 'send_money',
      method: 'POST',
      description: 'Send money from your balance to another wallet user.',
      parameters: [
        param.required('receiver_email', 'string', "The receiver's email address."),
        param.required('amount', 'number', 'The amount in dollars.', { minimum: 0.01 }),
        param.required('description', 'string', 'What the money is for.', { minLength: 1 }),
      ],
      responseExample: { message: 'string', transaction_id: 1 },
      handler: (call) => {
        const receiverId = otherUser(call, text(call.args, 'receiver_email'));
        const id = transfer(
          call,
          call.userId,
          receiverId,
          cents(num(call.args, 'amount')),
          text(call.args, 'description'),
        );
        return { message: 'Money sent.', transaction_id: id };
      },
    },
    {
      name: 'show_payment_requests',
      method: 'GET',
      description: 'Show payment requests you received (others asking you to pay) or sent.',
      parameters: [
        param.optional('direction', 'string', 'Requests you "received" or "sent".', 'received', {
          choices: ['received', 'sent'],
        }),
        param.optional('status', 'string', 'Only requests with this status; all when null.', null, {
          nullable: true,
          choices: ['pending', 'approved', 'denied'],
        }),
        ...pageParameters(['created_at', 'amount']),
      ],
      responseExample: [requestExample],
      handler: (call) => {
        const column = call.args['direction'] === 'sent' ? 'requester_id' : 'payer_id';
        const status = maybe<string>(call.args, 'status');
        return pageOf(
          allRows(
            call.db,
            `SELECT r.id AS payment_request_id, ${person('r', 'requester_id')}, ${person('r', 'payer_id')}, r.amount, r.description,
             r.status, r.created_at
           FROM wallet_payment_requests r WHERE r.${column} = ? AND (? IS NULL OR r.status = ?)
           ORDER BY r.created_at DESC, r.id DESC`,
            call.userId,
            status,
            status,
          ),
          call.args,
        );
      },
    },
    {
      name: 'approve_payment_request',
      method: 'POST',
      description: 'Pay a pending payment request you received.',
      parameters: [param.required('payment_request_id', 'integer', 'The id of the request.')],
      responseExample: { message: 'string', transaction_id: 1 },
      handler: (call) => {
        const request = pendingRequest(call);
        const id = transfer(call, call.userId, request.requester_id, request.amount, request.description);
        run(
          call.db,
          "UPDATE wallet_payment_requests SET status = 'approved', resolved_at = ? WHERE id = ?",
          call.task.now,
          request.id,
        );
        return { message: 'Payment request approved.', transaction_id: id };
      },
    },
    {
      name: 'deny_payment_request',
      method: 'POST',
      description: 'Decline a pending payment request you received.',
      parameters: [param.required('payment_request_id', 'integer', 'The id of the request.')],
      responseExample: { message: 'string' },
      handler: (call) => {
        const request = pendingRequest(call);
        run(
          call.db,
          "UPDATE wallet_payment_requests SET status = 'denied', resolved_at = ? WHERE id = ?",
          call.task.now,
          request.id,
        );
        return { message: 'Payment request denied.' };
      },
    },
    {
      name: 'request_money',
      method: 'POST',
      description: 'Ask another wallet user to pay you.',
      parameters: [
        param.required('payer_email', 'string', "The payer's email address."),
        param.required('amount', 'number', 'The amount in dollars.', { minimum: 0.01 }),
        param.required('description', 'string', 'What the money is for.', { minLength: 1 }),
      ],
      responseExample: { message: 'string', payment_request_id: 1 },
      handler: (call) => {
        const payerId = otherUser(call, text(call.args, 'payer_email'));
        const id = insertRow(call.db, 'wallet_payment_requests', {
          requester_id: call.userId,
          payer_id: payerId,
          amount: cents(num(call.args, 'amount')),
          description: text(call.args, 'description'),
          status: 'pending',
          created_at: call.task.now,
          resolved_at: null,
        });
        return { message: 'Payment request sent.', payment_request_id: id };
      },
    },
    {
      name: 'add_money_from_card',
      method: 'POST',
      description: 'Move money from one of your payment cards (see the supervisor app) into your wallet.',
      parameters: [
        param.required('payment_card_id', 'integer', 'The id of your payment card.'),
        param.required('amount', 'number', 'The amount in dollars.', { minimum: 0.01 }),
      ],
      responseExample: { message: 'string', balance: 1.5 },
      handler: (call) => {
        found(
          oneRow(
            call.db,
            'SELECT id FROM supervisor_payment_cards WHERE id = ? AND person_id = ?',
            num(call.args, 'payment_card_id'),
            call.userId,
          ),
          'Payment card',
        );
        run(
          call.db,
          'UPDATE wallet_balances SET balance = round(balance + ?, 2) WHERE user_id = ?',
          cents(num(call.args, 'amount')),
          call.userId,
        );
        return { message: 'Money added.', balance: balanceOf(call, call.userId) };
      },
    },
  ],
);
