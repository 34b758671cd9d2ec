import type { Database } from 'better-sqlite3';
import { passwordHash } from '../world/random-helpers.js';
import { oneRow, run } from '../world/rows.js';
import { systemSender, systemTextNumber } from '../world/schema.js';
import { act, decide, finish, login, withDoc } from './plan-steps.js';
import type { AppWorldSplit, Scenario } from './types.js';
import { literal, person, pickPeople } from './world-facts.js';

/** What differs between account recoveries on different services. */
interface RecoveryCase {
  app: 'music' | 'wallet' | 'shop';
  split: AppWorldSplit;
  /** Where the app sends reset codes. */
  channel: 'email' | 'text';
  /** The password the supervisor app still has on record, which no longer works. */
  stalePassword: string;
  newPasswords: [string, string, string];
  /** The instruction after "reset it to ...". */
  question: string;
  /** A guessed (wrong) parameter for send_password_reset_code. */
  wrongParameter: string;
  /** Code after logging in with the new password, setting `result`. */
  finalCode: string;
  /** The expected answer, from the initial state. */
  expected: (before: Database, userId: number) => number;
}

/** The code that finds the reset code in the mail inbox or in the text messages. */
function readCodeSteps(recovery: RecoveryCase, email: string, phoneNumber: string) {
  if (recovery.channel === 'email') {
    return [
      ...login('mail', email, 'mailToken'),
      act(
        [
          `var codeMails = apis.mail.show_inbox({ access_token: mailToken, sender: '${systemSender(recovery.app)}' });`,
          'var codeMail = apis.mail.show_email({ access_token: mailToken, email_id: codeMails[0].email_id });',
          'var resetCode = codeMail.body.match(/\\d{6}/)[0];',
          'print(resetCode);',
        ].join('\n'),
        'The code should be in my inbox.',
      ),
    ];
  }
  return [
    ...login('phone', phoneNumber, 'phoneToken'),
    act(
      [
        `var codeTexts = apis.phone.show_text_messages({ access_token: phoneToken, phone_number: ${literal(systemTextNumber)} });`,
        'var resetCode = codeTexts[0].message.match(/\\d{6}/)[0];',
        'print(resetCode);',
      ].join('\n'),
      'The code should be in my text messages.',
    ),
  ];
}

/**
 * An account recovery: the saved password no longer works, so the agent requests a reset code,
 * reads it from the mail inbox or the text messages, resets the password, logs in with the new
 * one and answers a question that needs the login. The wrong branch of `finish-account-flow`
 * stops once the code is read, as the paper's policy-only baseline did.
 */
function recoveryScenario(recovery: RecoveryCase): Scenario {
  const { app } = recovery;
  const channelText = recovery.channel === 'email' ? 'sent to my email' : 'comes by text message to my phone';
  return {
    name: `recover-${app}`,
    family: app,
    split: recovery.split,
    difficulty: 3,
    tags: ['account-recovery'],
    variants: (db) =>
      pickPeople(db, `recover-${app}`, 3).map((id, index) => {
        const { email, phone_number } = person(db, id);
        const newPassword = recovery.newPasswords[index] ?? recovery.newPasswords[0];
        return {
          supervisorId: id,
          instruction: `The password I saved for my ${app} account does not work any more. Reset it to "${newPassword}" (the reset code ${channelText}), then ${recovery.question}`,
          setup: (world) =>
            run(
              world,
              'UPDATE supervisor_passwords SET password = ? WHERE person_id = ? AND account_name = ?',
              recovery.stalePassword,
              id,
              app,
            ),
          plan: [
            withDoc(
              app,
              'send_password_reset_code',
              `apis.${app}.send_password_reset_code({ ${recovery.wrongParameter}: ${literal(email)} });`,
              [
                act(
                  `print(apis.${app}.send_password_reset_code({ email: ${literal(email)} }));`,
                  `I ask the ${app} app for a reset code.`,
                ),
              ],
            ),
            ...readCodeSteps(recovery, email, phone_number),
            decide(
              'finish-account-flow',
              [
                act(
                  [
                    `apis.${app}.reset_password({ email: ${literal(email)}, password_reset_code: resetCode, new_password: ${literal(newPassword)} });`,
                    `var ${app}Token = apis.${app}.login({ username: ${literal(email)}, password: ${literal(newPassword)} }).access_token;`,
                    "print('Logged in with the new password.');",
                  ].join('\n'),
                  'I reset the password and log in with the new one.',
                ),
                act(`${recovery.finalCode}\nprint(result);`),
                finish('result'),
              ],
              [finish(undefined, 'I have the reset code, so the account can be recovered.')],
            ),
          ],
          check: (context) => {
            const account = oneRow<{ password_hash: string }>(
              context.after,
              'SELECT password_hash FROM accounts WHERE app = ? AND user_id = ?',
              app,
              id,
            );
            context.require(
              'password-reset',
              account?.password_hash === passwordHash(app, id, newPassword),
              `the ${app} password is the requested one`,
            );
            context.expectAnswer(recovery.expected(context.before, id));
            context.allow('accounts', (change) => change.after?.['app'] === app && change.after['user_id'] === id);
          },
        };
      }),
  };
}

const count = (before: Database, sql: string, userId: number): number =>
  oneRow<{ value: number }>(before, sql, userId)?.value ?? 0;

/** Recovery on the wallet (code by text message): the train-split case, as the paper's Venmo flow. */
const recoverWallet = recoveryScenario({
  app: 'wallet',
  split: 'train',
  channel: 'text',
  stalePassword: 'OldCoins2023',
  newPasswords: ['Wallet-Safe-24', 'CoinJar#2024', 'Pocket$Reset8'],
  question: 'tell me my wallet balance.',
  wrongParameter: 'phone_number',
  finalCode: 'var result = apis.wallet.show_balance({ access_token: walletToken }).balance;',
  expected: (before, id) => count(before, 'SELECT balance AS value FROM wallet_balances WHERE user_id = ?', id),
});

/** Recovery on the music app (code by email): the dev-split case. */
const recoverMusic = recoveryScenario({
  app: 'music',
  split: 'dev',
  channel: 'email',
  stalePassword: 'OldTune2023!',
  newPasswords: ['TuneIn-2024!', 'Melody#Reset9', 'Playlist&Back7'],
  question: 'tell me how many playlists I have in the music app.',
  wrongParameter: 'username',
  finalCode: 'var result = apis.music.show_playlists({ access_token: musicToken, page_limit: 20 }).length;',
  expected: (before, id) => count(before, 'SELECT COUNT(*) AS value FROM music_playlists WHERE user_id = ?', id),
});

/** Recovery on the shop (code by email): the held-out case of the test split, as the paper's Amazon one. */
const recoverShop = recoveryScenario({
  app: 'shop',
  split: 'test',
  channel: 'email',
  stalePassword: 'Shopper2022',
  newPasswords: ['Basket-Reset-5', 'Checkout#2024', 'Parcel&Key77'],
  question: 'tell me the total of my most recent shop order.',
  wrongParameter: 'user_email',
  finalCode: "var result = apis.shop.show_orders({ access_token: shopToken, sort_by: '-created_at' })[0].total;",
  expected: (before, id) =>
    count(
      before,
      'SELECT total AS value FROM shop_orders WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT 1',
      id,
    ),
});

export const recoveryScenarios: Scenario[] = [recoverWallet, recoverMusic, recoverShop];
