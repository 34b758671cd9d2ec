import { ConfigError, InfrastructureError } from '@harness-s/core';

/** How long the first question to a model server may take before a run gives up on it. */
const probeTimeoutMs = 15_000;

/**
 * Asks a model server its models (`GET /models`) before a run starts, so a wrong `--base-url` or a
 * server that is not up fails at once, naming the address, instead of after every attempt's
 * retries. What no server would answer (nothing listens, the name does not resolve, no answer in
 * 15 s) stops the run as a service problem (`InfrastructureError`, exit 1: a script may wait for a
 * server that is still starting and try again); a refused key stops it as a setup mistake
 * (`ConfigError`, exit 2). Anything else (a server without `/models`, a model it does not list) is a
 * warning, as the chat completions may still work. With `run` (a training run's folder), a model
 * that names another run it has learned from (`harness-s serve sim` does) stops the run before it
 * samples from that run's parameters.
 */
export async function checkModelServer(
  baseUrl: string,
  model: string,
  warn: (line: string) => void,
  flag = '--base-url',
  run?: string,
): Promise<void> {
  const url = `${baseUrl.replace(/\/$/, '')}/models`;
  const key = process.env['OPENAI_API_KEY'];
  let response: Response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.timeout(probeTimeoutMs),
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });
  } catch (error) {
    const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
    const why =
      (error as Error).name === 'TimeoutError'
        ? `no answer in ${probeTimeoutMs / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    throw new InfrastructureError(
      `${flag} ${baseUrl}: no model server answers there (GET /models: ${why}); start the server, or check the address (\`harness-s doctor --base-url URL --model NAME\` tries it)`,
      { code: 'model-server-unreachable', cause: error },
    );
  }
  if (response.status === 401 || response.status === 403)
    throw new ConfigError(
      `${flag} ${baseUrl}: the server refused the key (GET /models answered ${response.status}); set OPENAI_API_KEY`,
      { code: 'model-server-refused' },
    );
  if (!response.ok) {
    warn(
      `${flag} ${baseUrl}: GET /models answered ${response.status}${/\/v1\/?$/.test(baseUrl) ? '' : ' (a --base-url usually ends in /v1)'}; going on with the chat completions`,
    );
    return;
  }
  const body = (await response.json().catch(() => ({}))) as { data?: Array<{ id?: unknown; harness_s?: unknown }> };
  if (run !== undefined) refuseAnotherRun(body.data?.find((item) => item.id === model)?.harness_s, run, flag, baseUrl);
  const models = (body.data ?? []).map((item) => item.id).filter((id): id is string => typeof id === 'string');
  if (models.length > 0 && !models.includes(model))
    warn(`${flag} ${baseUrl} lists ${models.join(', ')}, not --model ${model}; its chat completions may refuse it`);
}

/**
 * A model that learns from the batches runs hand over (`harness-s serve sim`) names the run its
 * parameters come from: another run would sample from them, and have its first batch refused.
 */
function refuseAnotherRun(served: unknown, run: string, flag: string, baseUrl: string): void {
  const from = served as { run?: unknown; steps?: unknown } | undefined;
  if (typeof from?.run !== 'string' || from.run === run) return;
  const steps = Array.isArray(from.steps) ? ` (steps ${from.steps.join(', ')})` : '';
  throw new ConfigError(
    `${flag} ${baseUrl}: the model there has learned from run ${from.run}${steps}, and serves that run only: start a server of its own for this run (\`harness-s serve sim\` with another --port and --out), or continue that run with --resume ${from.run}`,
    { code: 'model-serves-another-run' },
  );
}
