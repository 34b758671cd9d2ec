import type { PlanNode, SkillDescription } from '@harness-s/core';

/** The one tool of an AppWorld episode. */
export const executeTool = 'execute';

/** The skills the decision points of AppWorld plans name. */
export const appworldSkills: readonly SkillDescription[] = [
  { name: 'lookup-api-doc', description: "read an API's documentation (api_docs.show_api_doc) before its first call" },
  {
    name: 'ask-supervisor',
    description: 'take passwords, cards and addresses from the supervisor app instead of guessing them',
  },
  {
    name: 'fetch-all-pages',
    description: 'page through a list until an empty page instead of reading only the first page',
  },
  {
    name: 'intersect-not-union',
    description: 'keep only the items that meet every condition (an intersection), not any (a union)',
  },
  { name: 'check-after-write', description: 'read the state back after writing and finish what did not go through' },
  {
    name: 'finish-account-flow',
    description: 'finish an account recovery: reset the password, log in with it, then do the task',
  },
  {
    name: 'recover-from-error',
    description: 'after an error, find out what went wrong and retry instead of giving up',
  },
];

/** A code block the agent runs. */
export const act = (code: string, thought?: string): PlanNode => ({
  kind: 'act',
  action: { tool: executeTool, arguments: { code } },
  ...(thought ? { thought } : {}),
});

/** A decision point: the right branch and a realistic mistake. */
export const decide = (skill: string, right: PlanNode[], wrong: PlanNode[]): PlanNode => ({
  kind: 'decide',
  skill,
  right,
  wrong,
});

/** Ending the task as failed: what an agent does when it gives up. */
export const giveUp = (thought = 'I cannot get this to work, so I will stop here.'): PlanNode =>
  act("apis.supervisor.complete_task({ status: 'fail' });", thought);

/** Ending the task, with the answer expression when the task asks a question. */
export const finish = (answerExpression?: string, thought = 'Everything is done; completing the task.'): PlanNode =>
  act(
    answerExpression
      ? `apis.supervisor.complete_task({ answer: ${answerExpression} });`
      : 'apis.supervisor.complete_task({});',
    thought,
  );

const loginCode = (app: string, username: string, variable: string): string =>
  [
    'var passwords = apis.supervisor.show_account_passwords();',
    `var ${app}Password = passwords.find((account) => account.account_name === '${app}').password;`,
    `var ${variable} = apis.${app}.login({ username: '${username}', password: ${app}Password }).access_token;`,
    `print('Logged in to ${app}.');`,
  ].join('\n');

/**
 * Logging in. With a decision, the wrong branch guesses the password instead of asking the
 * supervisor app, gets a 401, and then recovers (asks) or gives up.
 */
export function login(app: string, username: string, variable: string, withDecision = false): PlanNode[] {
  const right = act(
    loginCode(app, username, variable),
    `First I log in to ${app} with the password from the supervisor app.`,
  );
  if (!withDecision) return [right];
  return [
    decide(
      'ask-supervisor',
      [right],
      [
        act(
          `var ${variable} = apis.${app}.login({ username: '${username}', password: 'password123' }).access_token;`,
          `I will log in to ${app}; the password is probably the usual one.`,
        ),
        decide(
          'recover-from-error',
          [act(loginCode(app, username, variable), 'The guess was wrong; the supervisor app has the password.')],
          [giveUp()],
        ),
      ],
    ),
  ];
}

/** Printing an API's documentation. */
export const showDoc = (app: string, api: string): PlanNode =>
  act(
    `print(apis.api_docs.show_api_doc({ app_name: '${app}', api_name: '${api}' }));`,
    `Let me read the documentation of ${app}.${api} first.`,
  );

/**
 * Looking up an API's documentation before its first call. The wrong branch calls it with a
 * guessed (wrong) parameter, gets a 422, then recovers (reads the doc) or gives up. `rest` are
 * the nodes that follow the lookup in both cases.
 */
export function withDoc(app: string, api: string, wrongCode: string, rest: PlanNode[]): PlanNode {
  return decide(
    'lookup-api-doc',
    [showDoc(app, api), ...rest],
    [
      act(wrongCode, `I will call ${app}.${api} directly.`),
      decide('recover-from-error', [showDoc(app, api), ...rest], [giveUp('The API keeps failing; I will give up.')]),
    ],
  );
}

/** Code that gathers every page of a list API into `variable` (`call` uses `page` as the page index). */
export const allPagesCode = (variable: string, call: (page: string) => string): string =>
  [
    `var ${variable} = [];`,
    'for (var page = 0; ; page += 1) {',
    `  var batch = ${call('page')};`,
    '  if (batch.length === 0) break;',
    `  ${variable} = ${variable}.concat(batch);`,
    '}',
  ].join('\n');

/** Code that reads only the first page (the default page size of 5). */
export const firstPageCode = (variable: string, call: (page: string) => string): string =>
  `var ${variable} = ${call('0')};`;

/**
 * Reading whole lists: the right branch pages until an empty page; the wrong one reads only the
 * first page. `lists` are (variable, call) pairs read in one code block; `after` is appended.
 */
export function fetchPages(
  lists: Array<[string, (page: string) => string]>,
  after: string,
  thought = 'Now I collect the lists I need.',
): PlanNode {
  const block = (code: (variable: string, call: (page: string) => string) => string) =>
    [...lists.map(([variable, call]) => code(variable, call)), after].filter((line) => line !== '').join('\n');
  return decide('fetch-all-pages', [act(block(allPagesCode), thought)], [act(block(firstPageCode), thought)]);
}

/** A list API call with paging arguments (`page_limit` 20 when paging through). */
export const pagedCall = (app: string, api: string, args: string) => (page: string) =>
  page === '0'
    ? `apis.${app}.${api}({ ${args} })`
    : `apis.${app}.${api}({ ${args}, page_index: ${page}, page_limit: 20 })`;
