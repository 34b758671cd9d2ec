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
 * warning, as the chat completions may still work.
 */
export async function checkModelServer(
  baseUrl: string,
  model: string,
  warn: (line: string) => void,
  flag = '--base-url',
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
  const body = (await response.json().catch(() => ({}))) as { data?: Array<{ id?: unknown }> };
  const models = (body.data ?? []).map((item) => item.id).filter((id): id is string => typeof id === 'string');
  if (models.length > 0 && !models.includes(model))
    warn(`${flag} ${baseUrl} lists ${models.join(', ')}, not --model ${model}; its chat completions may refuse it`);
}
