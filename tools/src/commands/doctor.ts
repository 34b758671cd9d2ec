import { ConfigError } from '@harness-s/core';
import { postgresUserLimits, redactUrl } from '@harness-s/env-dbbench';
import { defaultDockerClient, embeddedImageName } from '@harness-s/env-swegym';
import { pingRedis, redactRedisUrl } from '@harness-s/queue';
import { builtInEnvironments } from '../builtin-environments.js';
import { environmentNames } from '../environments.js';
import { duration, renderTable } from '../format.js';
import { appworldServers, oracleEpisode } from './doctor-episodes.js';

export interface DoctorFlags {
  /** PostgreSQL to try (`--db` of dbbench); given, it must work. */
  postgres?: string;
  /** MySQL or MariaDB to try; given, it must work. */
  mysql?: string;
  /** Redis of `train --redis` and `worker`; given, it must answer. */
  redis?: string;
  /** An OpenAI-compatible endpoint (`--policy openai`); by default OPENAI_BASE_URL when set. */
  baseUrl?: string;
  /** A model the endpoint must serve. */
  model?: string;
  /** AppWorld environment servers (`harness-s serve appworld`) to try; given, they must work. */
  appworldUrl?: string[];
  /** The task AppWorld's own server initializes for the check (default one of its dataset's, 82e2fac_1). */
  appworldTask?: string;
  /** Skip the Docker checks (`--no-docker`). */
  docker?: boolean;
  /** Longest a check may take, ms (default 120 000). */
  timeout?: number;
  json?: boolean;
  /** No progress lines on stderr. */
  quiet?: boolean;
}

/** One part checked: what it is, whether it works, what it was doing, and what needs it. */
export interface DoctorCheck {
  part: string;
  status: 'ok' | 'unreachable' | 'failed' | 'skipped';
  detail: string;
  neededBy: string;
  /** An embedded default, or a part the user named: the doctor fails when it does not work. */
  required: boolean;
  ms: number;
}

/** The addresses the doctor tries when none is given: the services' usual local ones. */
export const doctorDefaults = {
  postgres: 'postgres://postgres@127.0.0.1:5432/test',
  mysql: 'mysql://root@127.0.0.1:3306/test',
  redis: 'redis://127.0.0.1:6379',
};

/** Runs `work` with a deadline; its detail, or the reason it failed or timed out. */
async function timed(
  work: (signal: AbortSignal) => Promise<string>,
  timeoutMs: number,
): Promise<{ ok: boolean; detail: string; ms: number }> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${duration(timeoutMs)}`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    const detail = await Promise.race([work(controller.signal), deadline]);
    return { ok: true, detail, ms: performance.now() - started };
  } catch (error) {
    return { ok: false, detail: oneLine(failureText(error)), ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300);

/** What the checks are, in the order they run. */
interface Plan {
  part: string;
  neededBy: string;
  required: boolean;
  /** Failing to connect is `unreachable`, anything after `failed`. */
  run: (signal: AbortSignal) => Promise<string>;
  /** A reason it was not run. */
  skip?: string;
}

/**
 * An error's message, with its cause's where the message alone says little: `fetch failed`
 * becomes `fetch failed (connect ECONNREFUSED 127.0.0.1:1)`. A cause with no message of its own
 * (an AggregateError, when a name resolves to several addresses) gives its errors' messages.
 */
export function failureText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause : undefined;
  if (!cause) return error.message;
  const inner =
    cause.message ||
    (cause instanceof AggregateError
      ? cause.errors.map((item: unknown) => (item instanceof Error ? item.message : String(item))).join('; ')
      : '') ||
    String((cause as { code?: unknown }).code ?? '');
  return !inner || error.message.includes(inner) ? error.message : `${error.message} (${inner})`;
}

/** The Node.js the project needs (package.json's engines). */
const neededNode = [20, 10] as const;

/** The environments whose embedded defaults `plan` checks by name, with their own options. */
const checkedAbove = new Set(['dbbench', 'appworld', 'swegym']);

function plan(flags: DoctorFlags): Plan[] {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const oldNode = major < neededNode[0] || (major === neededNode[0] && minor < neededNode[1]);
  const baseUrl = flags.baseUrl ?? process.env['OPENAI_BASE_URL'];
  const docker = defaultDockerClient();
  const noDocker = flags.docker === false ? { skip: '--no-docker' } : {};
  const checks: Plan[] = [
    {
      part: 'Node.js',
      neededBy: `everything (${neededNode.join('.')} or later)`,
      required: true,
      run: async () => {
        if (oldNode) throw new Error(`Node.js ${process.versions.node} is older than ${neededNode.join('.')}`);
        return `v${process.versions.node}`;
      },
    },
    {
      part: 'dbbench on PGlite',
      neededBy: 'dbbench (the default --db)',
      required: true,
      run: (signal) => oracleEpisode('dbbench', {}, signal),
    },
    {
      part: 'appworld, embedded',
      neededBy: 'appworld (without --appworld-url)',
      required: true,
      run: (signal) => oracleEpisode('appworld', {}, signal),
    },
    ...(flags.appworldUrl?.length
      ? [
          {
            part: `AppWorld server ${flags.appworldUrl.join(' ')}`,
            neededBy: '--appworld-url',
            required: true,
            run: (signal: AbortSignal) => appworldServers(flags.appworldUrl ?? [], flags.appworldTask, signal),
          },
        ]
      : []),
    {
      part: 'swegym, local sandbox',
      neededBy: 'swegym with the simulated, oracle and empty policies (git, python3, node)',
      required: true,
      run: (signal) => oracleEpisode('swegym', { sandbox: 'local' }, signal),
    },
    // Every other environment, built in (a package added to builtInEnvironments) or added by a
    // plug-in (HARNESS_S_PLUGINS): registered, it is meant to work.
    ...environmentNames()
      .filter((name) => !checkedAbove.has(name))
      .map(
        (name): Plan => ({
          part: builtInEnvironments.some((entry) => entry.name === name) ? name : `${name} (plug-in)`,
          neededBy: `--env ${name}`,
          required: true,
          run: (signal) => oracleEpisode(name, {}, signal),
        }),
      ),
    {
      part: `PostgreSQL ${flags.postgres ? '' : '(default) '}${flags.postgres ?? doctorDefaults.postgres}`,
      neededBy: 'dbbench --db postgres://...',
      required: flags.postgres !== undefined,
      run: async (signal) => {
        const url = flags.postgres ?? doctorDefaults.postgres;
        const solved = await oracleEpisode('dbbench', { db: url }, signal);
        const limits = await postgresUserLimits(url);
        return limits ? `${solved}; ${limits}` : solved;
      },
    },
    {
      part: `MySQL/MariaDB ${flags.mysql ? '' : '(default) '}${flags.mysql ?? doctorDefaults.mysql}`,
      neededBy: 'dbbench --db mysql://...',
      required: flags.mysql !== undefined,
      run: (signal) => oracleEpisode('dbbench', { db: flags.mysql ?? doctorDefaults.mysql }, signal),
    },
    {
      part: `Redis ${flags.redis ? '' : '(default) '}${redactRedisUrl(flags.redis ?? doctorDefaults.redis)}`,
      neededBy: 'train --redis, harness-s worker',
      required: flags.redis !== undefined,
      run: async () => {
        const answer = await pingRedis(flags.redis ?? doctorDefaults.redis, 3000);
        if (!answer.ok) throw new Error(answer.reason);
        return 'answers PING';
      },
    },
    {
      part: 'Docker daemon',
      neededBy: "swegym --sandbox docker (a model's commands)",
      required: false,
      ...noDocker,
      run: async () => {
        const version = await docker.version();
        return `Docker ${version.Version}`;
      },
    },
    {
      part: `SWE-Gym image ${embeddedImageName()}`,
      neededBy: 'swegym --sandbox docker on the embedded instances (built by .ci/docker.sh)',
      required: false,
      ...noDocker,
      run: async (signal) => {
        await docker.getImage(embeddedImageName()).inspect();
        return oracleEpisode('swegym', { sandbox: 'docker' }, signal);
      },
    },
    {
      part: `OpenAI-compatible endpoint ${baseUrl ?? ''}`.trim(),
      neededBy: '--policy openai, LLM rankers, summaries and analysers',
      required: flags.baseUrl !== undefined,
      ...(baseUrl ? {} : { skip: 'no --base-url and no OPENAI_BASE_URL' }),
      run: async (signal) => {
        const response = await fetch(`${(baseUrl ?? '').replace(/\/$/, '')}/models`, {
          signal,
          headers: process.env['OPENAI_API_KEY'] ? { authorization: `Bearer ${process.env['OPENAI_API_KEY']}` } : {},
        });
        if (!response.ok) throw new Error(`GET /models answered ${response.status} ${response.statusText}`);
        const body = (await response.json()) as { data?: Array<{ id?: string; owned_by?: string }> };
        const models = (body.data ?? []).map((item) => item.id).filter((id): id is string => typeof id === 'string');
        // `harness-s serve sim` answers only its environment's tasks: a made-up question is refused there.
        if (body.data?.some((item) => item.owned_by === 'harness-s'))
          return `serves ${models.join(', ')}: harness-s serve sim, the simulated policy, which answers only its environment's tasks (no chat completion tried)`;
        if (flags.model && !models.includes(flags.model))
          throw new Error(`serves ${models.join(', ') || 'no model'}, not ${flags.model}`);
        if (!flags.model) return `serves ${models.join(', ') || 'no model'}; --model NAME also tries a chat completion`;
        const started = performance.now();
        const chat = await fetch(`${(baseUrl ?? '').replace(/\/$/, '')}/chat/completions`, {
          method: 'POST',
          signal,
          headers: {
            'content-type': 'application/json',
            ...(process.env['OPENAI_API_KEY'] ? { authorization: `Bearer ${process.env['OPENAI_API_KEY']}` } : {}),
          },
          body: JSON.stringify({
            model: flags.model,
            messages: [
              { role: 'system', content: 'You solve tasks by calling tools.' },
              { role: 'user', content: 'Call the tool finish with the answer 2, the sum of 1 and 1.' },
            ],
            tools: [
              {
                type: 'function',
                function: {
                  name: 'finish',
                  description: 'Ends the task with an answer.',
                  parameters: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
                },
              },
            ],
            max_tokens: 64,
          }),
        });
        const text = await chat.text();
        if (!chat.ok)
          throw new Error(`POST /chat/completions with a tool answered ${chat.status}: ${text.slice(0, 200)}`);
        let reply: { choices?: Array<{ message?: unknown }> };
        try {
          reply = JSON.parse(text);
        } catch {
          throw new Error(`POST /chat/completions answered a body that is not JSON: ${text.slice(0, 200)}`);
        }
        if (!reply.choices?.[0]?.message) throw new Error('POST /chat/completions answered no choices[0].message');
        return `serves ${models.join(', ')}; ${flags.model} answered a chat completion with a tool in ${Math.round(performance.now() - started)} ms`;
      },
    },
  ];
  return checks;
}

/** Connection failures, as opposed to a part that answers and then does something wrong. */
const unreachable =
  /cannot reach|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|connect|not reachable|no answer within|socket/i;

/** `harness-s doctor`: which real parts are reachable and working, each tried as a run would use it. */
/** Refuses a server flag whose value is no URL of that server's kind, naming the flag and a form. */
function checkServerUrl(flag: string, value: string | undefined, protocols: readonly string[], form: string): void {
  if (value === undefined) return;
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {}
  if (!protocols.includes(protocol))
    throw new ConfigError(`${flag}: '${redactUrl(value)}' is not a URL of that server; give one like ${form}`, {
      code: 'bad-flag',
    });
}

export async function runDoctor(
  flags: DoctorFlags,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<{ checks: DoctorCheck[]; ok: boolean }> {
  checkServerUrl('--postgres', flags.postgres, ['postgres:', 'postgresql:'], 'postgres://user@127.0.0.1:5432/db');
  checkServerUrl('--mysql', flags.mysql, ['mysql:', 'mariadb:'], 'mysql://root@127.0.0.1:3306/db');
  checkServerUrl('--redis', flags.redis, ['redis:', 'rediss:'], 'redis://127.0.0.1:6379');
  if (flags.appworldTask !== undefined && !flags.appworldUrl?.length)
    throw new ConfigError(
      '--appworld-task names the task an AppWorld server is checked on: give the server with --appworld-url',
      {
        code: 'bad-flag',
      },
    );
  const timeoutMs = flags.timeout ?? 120_000;
  const checks: DoctorCheck[] = [];
  for (const item of plan(flags)) {
    const base = { part: item.part, neededBy: item.neededBy, required: item.required };
    if (item.skip) {
      checks.push({ ...base, status: 'skipped', detail: item.skip, ms: 0 });
      continue;
    }
    const result = await timed(item.run, timeoutMs);
    const status = result.ok ? 'ok' : unreachable.test(result.detail) ? 'unreachable' : 'failed';
    checks.push({ ...base, status, detail: result.detail, ms: result.ms });
    if (!flags.json && !flags.quiet) {
      const mark = status === 'ok' ? 'ok' : item.required ? 'FAIL' : status;
      process.stderr.write(`doctor: ${item.part}: ${mark} (${duration(result.ms)})\n`);
    }
  }
  const ok = checks.every((check) => check.status === 'ok' || check.status === 'skipped' || !check.required);
  if (flags.json) {
    print(JSON.stringify({ ok, checks }, null, 2));
  } else {
    print(
      renderTable(
        ['status', 'part', 'detail'],
        checks.map((check) => [
          check.status === 'ok' || check.status === 'skipped' || !check.required ? check.status : `${check.status}!`,
          check.part,
          check.status === 'ok' ? check.detail : `${check.detail}; needed by ${check.neededBy}`,
        ]),
        3,
      ),
    );
    print(
      ok
        ? '\nThe embedded defaults work; a part that does not is needed only by the commands its line names.'
        : '\nA part marked ! does not work, and it is an embedded default or one named by a flag: see its line.',
    );
  }
  return { checks, ok };
}
