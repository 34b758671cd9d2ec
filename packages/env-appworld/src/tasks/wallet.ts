import type { Database } from 'better-sqlite3';
import { type CheckContext, numberOf } from '../evaluation/check-context.js';
import type { RecordChange } from '../evaluation/state-diff.js';
import { allRows, insertRow, oneRow } from '../world/rows.js';
import { act, decide, fetchPages, finish, login, pagedCall, withDoc } from './plan-steps.js';
import type { Scenario } from './types.js';
import { contactsOf, literal, person, pickPeople } from './world-facts.js';

const round = (value: number): number => Math.round(value * 100) / 100;

/** Balance changes of the users a task pays or is paid by are expected. */
function allowPayments(context: CheckContext, users: number[]): void {
  context.allow(
    'wallet_balances',
    (change) => change.kind === 'updated' && users.includes(numberOf(change.after, 'user_id')),
  );
}

const relationOptions = ['roommate', 'mother', 'manager'] as const;

/** Paying a relative found through the phone's contacts. */
const payRelative: Scenario = {
  name: 'pay-relative',
  family: 'wallet',
  split: 'dev',
  difficulty: 2,
  tags: ['multi-app'],
  variants: (db) =>
    relationOptions.map((relationship, index) => {
      const [id] = pickPeople(
        db,
        `pay-relative:${relationship}`,
        1,
        (candidate) => contactsOf(db, candidate, relationship).length === 1,
      );
      const supervisorId = id ?? 1;
      const { email, phone_number } = person(db, supervisorId);
      const relative = contactsOf(db, supervisorId, relationship)[0];
      const amount = [42.5, 18, 75.25][index] ?? 20;
      const description = ['Concert tickets', 'Birthday dinner', 'Team lunch'][index] ?? 'Thanks';
      return {
        supervisorId,
        instruction: `Send $${amount} to my ${relationship} through the wallet app, with the description "${description}".`,
        plan: [
          ...login('phone', phone_number, 'phoneToken', true),
          withDoc(
            'phone',
            'show_contacts',
            `var contacts = apis.phone.show_contacts({ access_token: phoneToken, relation: ${literal(relationship)} });`,
            [
              act(
                `var contacts = apis.phone.show_contacts({ access_token: phoneToken, relationship: ${literal(relationship)} });\nvar receiver = contacts[0];\nprint(receiver);`,
                `I look up my ${relationship} in my contacts.`,
              ),
            ],
          ),
          ...login('wallet', email, 'walletToken'),
          act(
            `print(apis.wallet.send_money({ access_token: walletToken, receiver_email: receiver.email, amount: ${amount}, description: ${literal(description)} }));`,
            'Now I send the money.',
          ),
          finish(),
        ],
        check: (context) => {
          const receiverId =
            oneRow<{ id: number }>(context.before, 'SELECT id FROM people WHERE email = ?', relative?.email ?? '')
              ?.id ?? -1;
          const sent = context.changes('wallet_transactions').filter((change) => change.kind === 'added');
          const right = sent.filter(
            (change) =>
              change.after?.['sender_id'] === supervisorId &&
              change.after['receiver_id'] === receiverId &&
              Math.abs(numberOf(change.after, 'amount') - amount) < 0.005 &&
              change.after['description'] === description,
          );
          context.require(
            'money-sent',
            right.length === 1 && sent.length === 1,
            `${right.length} matching payment(s) of ${sent.length} new`,
          );
          context.allow('wallet_transactions', (change) => right.includes(change));
          allowPayments(context, [supervisorId, receiverId]);
        },
      };
    }),
};

const months = [
  ['April 2024', '2024-04'],
  ['March 2024', '2024-03'],
  ['May 2024', '2024-05'],
] as const;

/** Summing a month's payments, spread over several pages. */
const totalSentMonth: Scenario = {
  name: 'total-sent-month',
  family: 'wallet',
  split: 'train',
  difficulty: 2,
  tags: ['pagination'],
  variants: (db) =>
    pickPeople(db, 'total-sent-month', 3).map((id, index) => {
      const { email } = person(db, id);
      const [monthName, month] = months[index] ?? months[0];
      return {
        supervisorId: id,
        instruction: `How much money did I send in total through the wallet app in ${monthName}?`,
        setup: (world) => {
          const friends = contactsOf(world, id);
          for (let day = 0; day < 7; day += 1) {
            const receiver = oneRow<{ id: number }>(
              world,
              'SELECT id FROM people WHERE email = ?',
              friends[day % friends.length]?.email ?? '',
            );
            insertRow(world, 'wallet_transactions', {
              sender_id: id,
              receiver_id: receiver?.id ?? 1,
              amount: round(11.25 + day * 7.5),
              description: 'Shared costs',
              created_at: `${month}-${String(3 + day * 3).padStart(2, '0')}T18:30:00`,
            });
          }
        },
        plan: [
          ...login('wallet', email, 'walletToken', true),
          withDoc(
            'wallet',
            'show_transactions',
            "var sent = apis.wallet.show_transactions({ access_token: walletToken, type: 'sent' });",
            [
              fetchPages(
                [
                  [
                    'sent',
                    pagedCall(
                      'wallet',
                      'show_transactions',
                      `access_token: walletToken, direction: 'sent', min_created_at: '${month}-01', max_created_at: '${month}-31'`,
                    ),
                  ],
                ],
                'var total = Math.round(sent.reduce((sum, item) => sum + item.amount, 0) * 100) / 100;\nprint(total);',
              ),
            ],
          ),
          finish('total'),
        ],
        check: (context) => {
          const total = oneRow<{ total: number }>(
            context.before,
            'SELECT COALESCE(SUM(amount), 0) AS total FROM wallet_transactions WHERE sender_id = ? AND substr(created_at, 1, 7) = ?',
            id,
            month,
          );
          context.expectAnswer(round(total?.total ?? 0));
        },
      };
    }),
};

const friendRequestCode = (union: boolean): string =>
  [
    'var friendEmails = new Set(friends.map((contact) => contact.email));',
    union
      ? "var toApprove = requests.filter((request) => request.status === 'pending' || friendEmails.has(request.requester_email));"
      : "var toApprove = requests.filter((request) => request.status === 'pending' && friendEmails.has(request.requester_email));",
    'for (var request of toApprove) apis.wallet.approve_payment_request({ access_token: walletToken, payment_request_id: request.payment_request_id });',
    "print('Approved ' + toApprove.length + ' requests.');",
  ].join('\n');

/** Approving the pending requests that come from friends: the held-out intersection case (test split). */
const approveFriendRequests: Scenario = {
  name: 'approve-friend-requests',
  family: 'wallet',
  split: 'test',
  difficulty: 3,
  tags: ['intersection', 'pagination', 'multi-app'],
  variants: (db) =>
    pickPeople(
      db,
      'approve-friend-requests',
      3,
      (id) => contactsOf(db, id, 'friend').length >= 2 && contactsOf(db, id, 'coworker').length >= 1,
    ).map((id) => {
      const { email, phone_number } = person(db, id);
      return {
        supervisorId: id,
        instruction:
          'Approve every pending payment request I received in the wallet app from someone who is a friend in my phone contacts. Leave all other requests as they are.',
        setup: (world: Database) => {
          const requesters = [
            ...contactsOf(world, id, 'friend').slice(0, 2),
            ...contactsOf(world, id, 'coworker').slice(0, 1),
          ];
          requesters.forEach((contact, offset) => {
            const requester = oneRow<{ id: number }>(world, 'SELECT id FROM people WHERE email = ?', contact.email);
            for (const status of ['pending', 'approved']) {
              insertRow(world, 'wallet_payment_requests', {
                requester_id: requester?.id ?? 1,
                payer_id: id,
                amount: round(14.5 + offset * 9),
                description: status === 'pending' ? 'Weekend trip' : 'Pizza night',
                status,
                created_at: `2024-06-0${offset + 2}T10:00:00`,
                resolved_at: status === 'pending' ? null : `2024-06-0${offset + 3}T10:00:00`,
              });
            }
          });
        },
        plan: [
          ...login('wallet', email, 'walletToken', true),
          ...login('phone', phone_number, 'phoneToken'),
          withDoc(
            'wallet',
            'show_payment_requests',
            "var requests = apis.wallet.show_payment_requests({ access_token: walletToken, status: 'open' });",
            [
              fetchPages(
                [
                  ['requests', pagedCall('wallet', 'show_payment_requests', 'access_token: walletToken')],
                  ['friends', pagedCall('phone', 'show_contacts', "access_token: phoneToken, relationship: 'friend'")],
                ],
                "print(requests.length + ' requests, ' + friends.length + ' friends');",
              ),
            ],
          ),
          decide(
            'intersect-not-union',
            [act(friendRequestCode(false), 'I approve the requests that are pending and come from a friend.')],
            [act(friendRequestCode(true), 'I approve the pending requests and the requests from friends.')],
          ),
          finish(),
        ],
        check: (context) => {
          const friendIds = allRows<{ id: number }>(
            context.before,
            "SELECT p.id FROM phone_contacts c JOIN people p ON p.email = c.email WHERE c.user_id = ? AND c.relationship = 'friend'",
            id,
          ).map((row) => row.id);
          const wanted = allRows<{ id: number; requester_id: number }>(
            context.before,
            "SELECT id, requester_id FROM wallet_payment_requests WHERE payer_id = ? AND status = 'pending'",
            id,
          ).filter((request) => friendIds.includes(request.requester_id));
          const statuses = wanted.map(
            (request) =>
              oneRow<{ status: string }>(
                context.after,
                'SELECT status FROM wallet_payment_requests WHERE id = ?',
                request.id,
              )?.status,
          );
          context.require(
            'friend-requests-approved',
            statuses.every((status) => status === 'approved'),
            `statuses: ${statuses.join(', ')}`,
          );
          const wantedIds = wanted.map((request) => request.id);
          const requesterIds = wanted.map((request) => request.requester_id);
          context.allow(
            'wallet_payment_requests',
            (change: RecordChange) => change.kind === 'updated' && wantedIds.includes(numberOf(change.after, 'id')),
          );
          context.allow(
            'wallet_transactions',
            (change) =>
              change.kind === 'added' &&
              change.after?.['sender_id'] === id &&
              requesterIds.includes(numberOf(change.after, 'receiver_id')),
          );
          allowPayments(context, [id, ...requesterIds]);
        },
      };
    }),
};

export const walletScenarios: Scenario[] = [payRelative, totalSentMonth, approveFriendRequests];
