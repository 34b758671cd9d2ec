import type { Action, Trajectory } from '@harness-s/core';
import { codeBlockLanguage } from '../codecs/code-block.js';
import { toolCallsLanguage } from '../codecs/tool-calls.js';
import type { EnvironmentExtras, FailureSignal, ToolTransform } from './extras-types.js';

const code = (action: Action): string | null =>
  action.tool === 'execute' && typeof action.arguments['code'] === 'string' ? action.arguments['code'] : null;

/** The app APIs a code block calls, in order, without the supervisor's, the docs' and logins. */
function calledApis(text: string): Array<{ app: string; api: string }> {
  const seen = new Set<string>();
  const calls: Array<{ app: string; api: string }> = [];
  for (const match of text.matchAll(/apis\.(\w+)\.(\w+)\(/g)) {
    const [, app, api] = match;
    if (!app || !api || app === 'supervisor' || app === 'api_docs' || api === 'login') continue;
    if (seen.has(`${app}.${api}`)) continue;
    seen.add(`${app}.${api}`);
    calls.push({ app, api });
  }
  return calls;
}

const docCode = (app: string, api: string, language?: string) =>
  language === 'python'
    ? `print(apis.api_docs.show_api_doc(app_name='${app}', api_name='${api}'))`
    : `print(apis.api_docs.show_api_doc({ app_name: '${app}', api_name: '${api}' }));`;
const writeApi =
  /^(create|add|update|delete|remove|send|reset|set|mark|post|like|follow|tag|move|pay|transfer|approve|book|order)/;

/**
 * Prints the documentation of every app API a code block calls, before the block runs: the
 * documentation lookup is done for the policy (the printout arrives with the block's result).
 */
const apiDocLookup: ToolTransform = {
  kind: 'api-doc-lookup',
  skill: 'lookup-api-doc',
  direction: 'api-grounding',
  description: 'prints api_docs.show_api_doc of every app API a code block calls before running it',
  note: 'Before running your code, the harness prints the documentation of every API it calls.',
  emits: ['execute'],
  languages: ['javascript', 'python'],
  expand(action, _options, language) {
    const text = code(action);
    if (!text) return null;
    const apis = calledApis(text);
    if (apis.length === 0) return null;
    return [
      ...apis.map(({ app, api }) => ({ tool: 'execute', arguments: { code: docCode(app, api, language) } })),
      action,
    ];
  },
};

/** The helper `listPaging` defines: a list call without paging arguments, made for every page. */
export const pagingHelper = '__harness_all_pages';

/**
 * One line of JavaScript defining `pagingHelper(app, api)`: a function of an API's arguments that
 * calls the API once where the arguments are not an object or name `page_index` or `page_limit`,
 * or where the API's documentation lists no `page_index` (it is not a list); otherwise it reads
 * page after page, 20 items each, until a short page, and returns them all. What it learns from the documentation is
 * kept in the sandbox across code blocks. One line, so that a traceback's line numbers stay those
 * of the policy's code.
 */
const pagingHelperCode = [
  `var ${pagingHelper} = typeof ${pagingHelper} === 'function' ? ${pagingHelper} : (function () {`,
  'var paged = {};',
  'return function (app, api) { return function (args) {',
  "if (args !== undefined && (args === null || typeof args !== 'object')) return apis[app][api](args);",
  'var given = args || {};',
  "if ('page_index' in given || 'page_limit' in given) return apis[app][api](given);",
  "var key = app + '.' + api;",
  'if (!(key in paged)) {',
  'var doc = apis.api_docs.show_api_doc({ app_name: app, api_name: api });',
  "paged[key] = Boolean(doc && Array.isArray(doc.parameters) && doc.parameters.some(function (p) { return p && p.name === 'page_index'; }));",
  '}',
  'if (!paged[key]) return apis[app][api](given);',
  'var all = [];',
  'for (var page = 0; ; page += 1) {',
  'var batch = apis[app][api](Object.assign({}, given, { page_index: page, page_limit: 20 }));',
  'if (!Array.isArray(batch)) return page === 0 ? batch : all;',
  'all = all.concat(batch);',
  'if (batch.length < 20) return all;',
  '}',
  '}; };',
  '})();',
].join(' ');

/**
 * The Python form of the helper, defined once per episode by the transform's prelude (Python has
 * no one-line function with a loop): `pagingHelper(function, app, api)` behaves as the JavaScript
 * one, with positional arguments in place of a non-object one. It takes the API function itself,
 * so it needs neither `getattr` nor `exec`, which sandboxes may refuse.
 */
export const pythonPagingHelperCode = [
  `def ${pagingHelper}(function, app, api, _paged={}):`,
  '    def call(*args, **kwargs):',
  "        if args or 'page_index' in kwargs or 'page_limit' in kwargs:",
  '            return function(*args, **kwargs)',
  "        key = app + '.' + api",
  '        if key not in _paged:',
  '            doc = apis.api_docs.show_api_doc(app_name=app, api_name=api)',
  "            parameters = doc.get('parameters') if isinstance(doc, dict) else None",
  '            _paged[key] = isinstance(parameters, list) and any(',
  "                isinstance(parameter, dict) and parameter.get('name') == 'page_index' for parameter in parameters",
  '            )',
  '        if not _paged[key]:',
  '            return function(**kwargs)',
  '        items = []',
  '        page = 0',
  '        while True:',
  '            batch = function(**kwargs, page_index=page, page_limit=20)',
  '            if not isinstance(batch, list):',
  '                return batch if page == 0 else items',
  '            items.extend(batch)',
  '            if len(batch) < 20:',
  '                return items',
  '            page += 1',
  '    return call',
].join('\n');

/**
 * Reads whole lists for the policy: every app API call in a code block (the documentation's aside)
 * goes through `pagingHelper`, so a list call without paging arguments returns every page instead
 * of the first five items. The block's code is otherwise unchanged. In JavaScript (the embedded
 * world, `harness-s serve appworld`) the helper is defined on the block's first line; in Python (the
 * real AppWorld server) a prelude defines it once, before the policy's first turn, and each call
 * passes it the API function. Either way the policy's line numbers are kept.
 */
const listPaging: ToolTransform = {
  kind: 'list-paging',
  skill: 'fetch-all-pages',
  direction: 'pagination',
  description: 'makes every list API call without page_index or page_limit return all pages',
  note: 'The harness pages through lists for you: a list API called without page_index or page_limit returns every page.',
  emits: ['execute'],
  languages: ['javascript', 'python'],
  rewrites: true,
  prelude(_task, _options, language) {
    if (language !== 'python') return null;
    return {
      actions: [{ tool: 'execute', arguments: { code: pythonPagingHelperCode } }],
      thought: `The harness defines ${pagingHelper}, through which it pages lists for you.`,
    };
  },
  expand(action, _options, language) {
    const text = code(action);
    if (text === null) return null;
    const python = language === 'python';
    const rewritten = text.replace(/\bapis\.(?!api_docs\.)(\w+)\.(\w+)\(/g, (_, app: string, api: string) =>
      python ? `${pagingHelper}(apis.${app}.${api}, '${app}', '${api}')(` : `${pagingHelper}('${app}', '${api}')(`,
    );
    if (rewritten === text) return null;
    const withHelper = python ? rewritten : `${pagingHelperCode} ${rewritten}`;
    return [{ ...action, arguments: { ...action.arguments, code: withHelper } }];
  },
};

/**
 * The two lists a check compares, from its detail: `expected songs 3,5, found 3,5,8`,
 * `expected 2,4, ordered 2` or `expected Ann | Bo; found Ann`. Null for other details.
 */
export function comparedLists(detail: string): { expected: string[]; actual: string[] } | null {
  const match = /^expected (?:[a-z]+ )?(.*?)[,;] (?:found|ordered|got) (.*)$/.exec(detail);
  if (!match) return null;
  const items = (text: string) =>
    text
      .split(/\s*[,|]\s*/)
      .map((item) => item.trim())
      .filter((item) => item !== '' && item !== 'none');
  return { expected: items(match[1] ?? ''), actual: items(match[2] ?? '') };
}

/** Failure signals of AppWorld trajectories: guessed passwords or parameters, giving up, first pages only, unions, unfinished flows. */
function appworldFailureSignals(trajectory: Trajectory): FailureSignal[] {
  const signals: FailureSignal[] = [];
  const blocks = trajectory.turns.flatMap((turn) =>
    turn.actions.flatMap((record) => {
      const text = code(record.action);
      return text === null
        ? []
        : [{ turn: turn.index, text, error: record.result.error ? record.result.observation : null }];
    }),
  );
  const documented = new Set<string>();
  let lastError = -1;
  blocks.forEach((block, index) => {
    for (const match of block.text.matchAll(
      /show_api_doc\((?:\{ app_name: '(\w+)', api_name: '(\w+)' \}|app_name=['"](\w+)['"], ?api_name=['"](\w+)['"])\)/g,
    ))
      documented.add(`${match[1] ?? match[3]}.${match[2] ?? match[4]}`);
    if (block.error === null) return;
    lastError = index;
    const evidence = `turn ${block.turn}: ${block.error.replace(/\s+/g, ' ').slice(-140)}`;
    if (/status code is 401/.test(block.error))
      signals.push({ kind: 'guessed-credentials', skill: 'ask-supervisor', evidence });
    else if (
      /status code is 422|unexpected parameter/.test(block.error) &&
      calledApis(block.text).some(({ app, api }) => !documented.has(`${app}.${api}`))
    ) {
      signals.push({ kind: 'skipped-api-doc', skill: 'lookup-api-doc', evidence });
    }
  });
  const gaveUp = blocks.some((block) =>
    /complete_task\((?:\{ status: 'fail' \}|status=['"]fail['"])\)/.test(block.text),
  );
  const recovered =
    lastError >= 0 &&
    blocks.slice(lastError + 1).some((block) => block.error === null && !/complete_task/.test(block.text));
  if (lastError >= 0 && (gaveUp || !recovered)) {
    signals.push({
      kind: 'gave-up-after-error',
      skill: 'recover-from-error',
      evidence: `no recovery after the error at turn ${blocks[lastError]?.turn}`,
    });
  }
  for (const check of trajectory.evaluation?.checks ?? []) {
    if (check.passed) continue;
    const detail = check.detail ?? '';
    const counts = /expected (\d+), got (\d+)/.exec(detail);
    // A list check: more than asked for is a union; fewer is a missed page or a skipped item.
    const lists = counts ? null : comparedLists(detail);
    const superset =
      lists !== null &&
      lists.actual.length > lists.expected.length &&
      lists.expected.every((item) => lists.actual.includes(item));
    const subset =
      lists !== null &&
      lists.actual.length < lists.expected.length &&
      lists.actual.every((item) => lists.expected.includes(item));
    const firstPageOnly = blocks.some(
      (block) =>
        /apis\.\w+\.show_\w+\((?:\{[^}]*\}|[^()]*=[^()]*)\)/.test(block.text) && !/page_index/.test(block.text),
    );
    if (check.name === 'password-reset') {
      signals.push({ kind: 'unfinished-account-flow', skill: 'finish-account-flow', evidence: detail });
    } else if (check.name === 'no-collateral-damage' || (counts && Number(counts[2]) > Number(counts[1])) || superset) {
      signals.push({
        kind: 'union-instead-of-intersection',
        skill: 'intersect-not-union',
        evidence: `${check.name}: ${detail}`,
      });
    } else if (((counts && Number(counts[2]) < Number(counts[1])) || subset) && firstPageOnly) {
      signals.push({ kind: 'first-page-only', skill: 'fetch-all-pages', evidence: `${check.name}: ${detail}` });
    } else if (
      /^\d+ of \d+/.test(detail) &&
      blocks.some((block) => block.error && calledApis(block.text).some(({ api }) => writeApi.test(api)))
    ) {
      signals.push({ kind: 'unchecked-write', skill: 'check-after-write', evidence: `${check.name}: ${detail}` });
    } else if (/^\d+ of \d+/.test(detail) && firstPageOnly) {
      signals.push({ kind: 'first-page-only', skill: 'fetch-all-pages', evidence: `${check.name}: ${detail}` });
    }
  }
  return signals;
}

/** AppWorld's extras: the documentation lookup transform, which calls write state, failure signals. */
export const appworldExtras: EnvironmentExtras = {
  env: 'appworld',
  transforms: [apiDocLookup, listPaging],
  codeLanguage: (spec) =>
    spec.codec.kind === 'code-block'
      ? codeBlockLanguage(spec.codec.options)
      : spec.codec.kind === 'tool-calls'
        ? (toolCallsLanguage(spec.codec.options) ?? 'javascript')
        : 'javascript',
  changesState: (action) => {
    const text = code(action);
    return text !== null && calledApis(text).some(({ api }) => writeApi.test(api));
  },
  verificationSkill: 'check-after-write',
  recoverySkill: 'recover-from-error',
  skillDirections: {
    'lookup-api-doc': 'api-grounding',
    'ask-supervisor': 'credentials',
    'fetch-all-pages': 'pagination',
    'intersect-not-union': 'constraint-filtering',
    'check-after-write': 'write-verification',
    'finish-account-flow': 'multi-step-flows',
    'recover-from-error': 'error-recovery',
  },
  failureSignals: appworldFailureSignals,
};
