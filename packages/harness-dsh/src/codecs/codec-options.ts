import { ConfigError } from '@harness-s/core';
import type { z } from 'zod';

/** A codec's `codec.options` read with its schema; a bad one is refused naming the field. */
export function parseCodecOptions<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const parsed = schema.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`codec.options.${issue?.path.join('.') || '(root)'}: ${issue?.message}`, {
      code: 'bad-codec-options',
    });
  }
  return parsed.data;
}
