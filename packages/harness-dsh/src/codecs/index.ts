import { type ActionCodec, ConfigError } from '@harness-s/core';
import { dbbenchTextCodec } from './dbbench-text.js';
import { toolCallsCodec } from './tool-calls.js';

const codecs: ReadonlyMap<string, ActionCodec> = new Map(
  [toolCallsCodec, dbbenchTextCodec].map((codec) => [codec.kind, codec]),
);

/** The codec of a kind named in a harness spec. */
export function codecFor(kind: string): ActionCodec {
  const codec = codecs.get(kind);
  if (!codec) {
    throw new ConfigError(`unknown action codec '${kind}' (codec.kind); known: ${[...codecs.keys()].join(', ')}`, {
      code: 'unknown-codec',
    });
  }
  return codec;
}

export const codecKinds = (): string[] => [...codecs.keys()];
export { dbbenchTextCodec, toolCallsCodec };
