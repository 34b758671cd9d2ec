import { ConfigError, describeError } from '@harness-s/core';
import { Redis, type RedisOptions } from 'ioredis';
import { z } from 'zod';

/** `redis://[user:password@]host:port[/db]` or `rediss://...`; the db index keeps runs of several users apart. */
export const RedisUrl = z.url({ protocol: /^rediss?$/ });

/**
 * Who holds the connection. Workers block on Redis and must wait out outages forever
 * (`maxRetriesPerRequest: null`, as BullMQ requires); the producer's commands fail after a few
 * reconnection tries so its loop can report the outage and decide how long to wait.
 */
export type ConnectionRole = 'producer' | 'worker';

/** Checks a `--redis` value; a ConfigError names the flag otherwise. */
export function checkRedisUrl(url: string): string {
  if (!RedisUrl.safeParse(url).success)
    throw new ConfigError(`--redis must be a redis:// or rediss:// URL, got '${url}'`, { code: 'bad-flag' });
  return url;
}

/** Opens a Redis connection for BullMQ; connection errors go to `onError` instead of the console. */
export function connectRedis(
  url: string,
  role: ConnectionRole,
  onError: (error: Error) => void = () => undefined,
  overrides: RedisOptions = {},
): Redis {
  const connection = new Redis(checkRedisUrl(url), {
    maxRetriesPerRequest: role === 'worker' ? null : 3,
    // Reconnect quickly at first, then every second: a restarted Redis is found again within a second.
    retryStrategy: (times) => Math.min(times * 100, 1000),
    ...overrides,
  });
  connection.on('error', onError);
  return connection;
}

/** The URL without its password, for messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** Whether a Redis answers PING at `url` within `timeoutMs`; the reason when it does not. */
export async function pingRedis(url: string, timeoutMs = 2000): Promise<{ ok: true } | { ok: false; reason: string }> {
  let lastError = '';
  let connection: Redis;
  try {
    connection = connectRedis(url, 'producer', (error) => (lastError = describeError(error)), {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
  } catch (error) {
    return { ok: false, reason: describeError(error) };
  }
  try {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref(),
    );
    await Promise.race([connection.connect().then(() => connection.ping()), timeout]);
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: lastError || describeError(error) };
  } finally {
    connection.disconnect();
  }
}
