import { type ActionCodec, type CodecSpec, ConfigError } from '@harness-s/core';
import { codeBlockCodec, createCodeBlockCodec } from './code-block.js';
import { createCodeActCodec } from './codeact.js';
import { dbbenchTextCodec } from './dbbench-text.js';
import { sqlOnlyCodec } from './sql-only.js';
import { sweTextCodec } from './swe-text.js';
import { createToolCallsCodec, toolCallsCodec, toolCallsLanguage } from './tool-calls.js';

const codecs = new Map<string, ActionCodec>(
  [dbbenchTextCodec, sqlOnlyCodec, sweTextCodec].map((codec) => [codec.kind, codec]),
);

/** Codecs configured by `codec.options`, built per spec. */
const codecFactories: ReadonlyMap<string, (options: unknown) => ActionCodec> = new Map([
  ['codeact', createCodeActCodec],
  ['code-block', createCodeBlockCodec],
  ['tool-calls', createToolCallsCodec],
]);

/** The codec a spec's `codec` names, with its options. */
export function createCodec(spec: CodecSpec): ActionCodec {
  const factory = codecFactories.get(spec.kind);
  if (factory) return factory(spec.options);
  if (spec.options !== undefined && Object.keys(spec.options).length > 0) {
    throw new ConfigError(`codec.options: codec '${spec.kind}' takes no options`, { code: 'bad-codec-options' });
  }
  return codecFor(spec.kind);
}

/** The codec of a kind named in a harness spec (with its default options). */
export function codecFor(kind: string): ActionCodec {
  const codec = codecs.get(kind) ?? codecFactories.get(kind)?.(undefined);
  if (!codec) {
    throw new ConfigError(`codec.kind: unknown action codec '${kind}'; known: ${codecKinds().join(', ')}`, {
      code: 'unknown-codec',
    });
  }
  return codec;
}

export const codecKinds = (): string[] => [...codecs.keys(), ...codecFactories.keys()];

/** Adds an action codec (a plug-in's) that harness specs can name by its kind; a known kind is refused. */
export function registerCodec(codec: ActionCodec): void {
  if (codecs.has(codec.kind) || codecFactories.has(codec.kind)) {
    throw new ConfigError(`codec '${codec.kind}' is already registered`, { code: 'duplicate-codec' });
  }
  codecs.set(codec.kind, codec);
}

/** Removes a codec `registerCodec` added (a plug-in refused after it registered its codecs). */
export function unregisterCodec(kind: string): void {
  codecs.delete(kind);
}
export {
  codeBlockCodec,
  createCodeActCodec,
  createCodeBlockCodec,
  createToolCallsCodec,
  dbbenchTextCodec,
  sqlOnlyCodec,
  sweTextCodec,
  toolCallsCodec,
  toolCallsLanguage,
};
