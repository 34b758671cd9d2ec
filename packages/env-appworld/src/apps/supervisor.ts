import { defineApp, param } from '../api/definition.js';
import { allRows, oneRow } from '../world/rows.js';

/**
 * The person the agent works for: their profile, addresses, payment cards and the passwords of
 * their accounts, and `complete_task`, which ends the task with an answer.
 */
export const supervisorApp = defineApp(
  'supervisor',
  'The person you work for: their profile, addresses, payment cards and account passwords; complete_task ends the task.',
  [
    {
      name: 'show_profile',
      method: 'GET',
      description: "Show your supervisor's profile.",
      authenticated: false,
      parameters: [],
      responseExample: {
        first_name: 'string',
        last_name: 'string',
        email: 'string',
        phone_number: 'string',
        birthday: 'string',
        city: 'string',
      },
      handler: (call) =>
        oneRow(
          call.db,
          'SELECT first_name, last_name, email, phone_number, birthday, city FROM people WHERE id = ?',
          call.task.supervisorId,
        ),
    },
    {
      name: 'show_addresses',
      method: 'GET',
      description: "Show your supervisor's addresses.",
      authenticated: false,
      parameters: [],
      responseExample: [
        { address_id: 1, name: 'Home', street_address: 'string', city: 'string', state: 'string', zip_code: 'string' },
      ],
      handler: (call) =>
        allRows(
          call.db,
          'SELECT id AS address_id, name, street_address, city, state, zip_code FROM supervisor_addresses WHERE person_id = ? ORDER BY id',
          call.task.supervisorId,
        ),
    },
    {
      name: 'show_payment_cards',
      method: 'GET',
      description: "Show your supervisor's payment cards.",
      authenticated: false,
      parameters: [],
      responseExample: [
        {
          payment_card_id: 1,
          card_name: 'string',
          owner_name: 'string',
          card_number: 'string',
          expiry_year: 2027,
          expiry_month: 1,
          cvv: 'string',
        },
      ],
      handler: (call) =>
        allRows(
          call.db,
          `SELECT id AS payment_card_id, card_name, owner_name, card_number, expiry_year, expiry_month, cvv
           FROM supervisor_payment_cards WHERE person_id = ? ORDER BY id`,
          call.task.supervisorId,
        ),
    },
    {
      name: 'show_account_passwords',
      method: 'GET',
      description: 'Show the passwords your supervisor keeps for their app accounts (they may be out of date).',
      authenticated: false,
      parameters: [],
      responseExample: [{ account_name: 'string', password: 'string' }],
      handler: (call) =>
        allRows(
          call.db,
          'SELECT account_name, password FROM supervisor_passwords WHERE person_id = ? ORDER BY account_name',
          call.task.supervisorId,
        ),
    },
    {
      name: 'complete_task',
      method: 'POST',
      description:
        'Mark the task as done. Give the answer when the task asks a question (leave it null otherwise); use status "fail" if you could not do the task.',
      authenticated: false,
      parameters: [
        param.optional('answer', 'any', 'The answer to the task, when it asks for one.', null, { nullable: true }),
        param.optional('status', 'string', 'Whether you did the task.', 'success', { choices: ['success', 'fail'] }),
      ],
      responseExample: { message: 'string' },
      handler: (call) => {
        call.complete(call.args['answer'] ?? null, call.args['status'] === 'fail' ? 'fail' : 'success');
        return { message: 'Task marked as completed.' };
      },
    },
  ],
);
