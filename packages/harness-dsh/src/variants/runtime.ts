import {
  type Action,
  type ActionCodec,
  ConfigError,
  type DecodedAction,
  type ExecutedAction,
  type HarnessSpec,
  type Message,
  type PreludeTurn,
  type Task,
  type ToolSpec,
} from '@harness-s/core';
import { environmentExtras, type ToolTransform, transformFits } from './extras.js';

/**
 * The parts of a harness that come from a variant's mechanics (tool transforms and execution
 * rules), built once per spec and shared by every episode. Harnesses without mechanics get the
 * base codec and no extra messages, so H0 behaves exactly as before.
 */
export interface HarnessMechanics {
  /** The base codec, with tool transforms expanding decoded actions into base actions. */
  codec: ActionCodec;
  prelude?: (task: Task, envTools: readonly ToolSpec[]) => PreludeTurn | null;
  /** Messages the execution rules add after a turn's observations (retry hints, reminders). */
  afterTurn(executed: readonly ExecutedAction[]): Message[];
  /** A label for an action a transform added (shown before its observation), or null. */
  label(action: Action): string | null;
}

/** The transforms a spec names, or a ConfigError naming the field of the first unknown one. */
export function resolveTransforms(
  spec: HarnessSpec,
): Array<{ transform: ToolTransform; options: Record<string, unknown> }> {
  const extras = environmentExtras(spec.env);
  return spec.tools.map((entry, index) => {
    const transform = extras.transforms.find((candidate) => candidate.kind === entry.kind);
    if (!transform) {
      const known = extras.transforms.map((candidate) => candidate.kind).join(', ') || '(none)';
      throw new ConfigError(
        `tools.${index}.kind: unknown tool transform '${entry.kind}' for environment '${spec.env}'; known: ${known}`,
        { code: 'unknown-transform' },
      );
    }
    if (entry.skill !== undefined && entry.skill !== transform.skill) {
      throw new ConfigError(
        `tools.${index}.skill: transform '${entry.kind}' performs '${transform.skill ?? 'no skill'}', not '${entry.skill}'`,
        { code: 'bad-transform-skill' },
      );
    }
    if (!transformFits(transform, spec)) {
      throw new ConfigError(
        `tools.${index}.kind: transform '${entry.kind}' works in ${transform.languages?.join(', ')} code, not in ${extras.codeLanguage?.(spec)} (harness ${spec.id})`,
        { code: 'unsupported-transform' },
      );
    }
    return { transform, options: entry.options };
  });
}

export function createMechanics(spec: HarnessSpec, baseCodec: ActionCodec): HarnessMechanics {
  const transforms = resolveTransforms(spec);
  const extras = environmentExtras(spec.env);
  const { retryOnError, verifyAfterChange } = spec.execution;
  if (verifyAfterChange && !extras.changesState) {
    throw new ConfigError(
      `execution.verifyAfterChange: the harness cannot tell which actions of '${spec.env}' change its state`,
      { code: 'unsupported-rule' },
    );
  }
  // Actions a transform added, so their observations can say where they came from.
  const added = new WeakMap<Action, string>();
  const expanders = transforms.filter(({ transform }) => transform.expand);
  const language = extras.codeLanguage?.(spec);
  const preluders = transforms.filter(({ transform }) => transform.prelude);

  const expand = (decoded: DecodedAction): DecodedAction[] => {
    let actions: Action[] = [decoded.action];
    for (const { transform, options } of expanders) {
      actions = actions.flatMap((action) => {
        const expanded = transform.expand?.(action, options, language);
        if (!expanded) return [action];
        // A rewrite stands for the policy's action; actions added around it are the harness's.
        if (!transform.rewrites) for (const item of expanded) if (item !== action) added.set(item, transform.kind);
        return expanded;
      });
    }
    return actions.map((action) => ({ ...decoded, action }));
  };

  const codec: ActionCodec =
    expanders.length === 0
      ? baseCodec
      : {
          kind: baseCodec.kind,
          apiTools: (envTools) => baseCodec.apiTools(envTools),
          decode(message, envTools) {
            const decoded = baseCodec.decode(message, envTools);
            if (!decoded.ok) return decoded;
            return {
              ok: true,
              actions: decoded.actions.flatMap((item) => (item.harnessResult ? [item] : expand(item))),
            };
          },
          encode: (actions, thought) => baseCodec.encode(actions, thought),
        };

  const prelude =
    preluders.length === 0
      ? undefined
      : (task: Task): PreludeTurn | null => {
          const parts = preluders.flatMap(({ transform, options }) => {
            const part = transform.prelude?.(task, options, language);
            return part && part.actions.length > 0 ? [part] : [];
          });
          if (parts.length === 0) return null;
          const actions = parts.flatMap((part) => part.actions);
          const encoded = baseCodec.encode(actions, parts.map((part) => part.thought).join(' '));
          // Distinct call ids, so they never collide with the policy's own calls.
          const toolCalls = encoded.toolCalls?.map((call, index) => ({ ...call, id: `harness_${index}` }));
          return {
            message: { ...encoded, ...(toolCalls ? { toolCalls } : {}) },
            actions: actions.map((action, index) => ({ action, ...(toolCalls ? { callId: `harness_${index}` } : {}) })),
          };
        };

  return {
    codec,
    ...(prelude ? { prelude } : {}),
    afterTurn(executed) {
      const messages: Message[] = [];
      if (retryOnError && executed.some((item) => item.result.error && !item.harnessResult)) {
        messages.push({ role: 'user', content: retryOnError.message });
      }
      if (
        verifyAfterChange &&
        !executed.some((item) => item.result.done) &&
        executed.some((item) => !item.result.error && !item.harnessResult && extras.changesState?.(item.action))
      ) {
        messages.push({ role: 'user', content: verifyAfterChange.message });
      }
      return messages;
    },
    label: (action) => {
      const kind = added.get(action);
      return kind ? `[${kind}: ${action.tool} ${JSON.stringify(action.arguments)}]` : null;
    },
  };
}
