import {
  type Action,
  ConfigError,
  formatZodError,
  type Harness,
  HarnessSpec,
  type ToolSpec,
  type Trajectory,
} from '@harness-s/core';
import { createHarness } from '../harness.js';
import { builtInHarnessSpec } from '../registry.js';
import { actionFormatSkillDescription } from './extras.js';
import { applyOperations } from './patch.js';
import { resolveTransforms } from './runtime.js';
import { canonicalJson, variantId } from './variant-id.js';

/** What the static check can compare a variant with, when the caller knows it. */
export interface VariantCheckOptions {
  /** The environment's tools: every action a transform adds must call one of them. */
  envTools?: readonly ToolSpec[];
  /** The environment's skill names: every directive's or transform's skill must be one of them. */
  skills?: readonly string[];
  /** The base harness, when it is not a built-in one (the evolution knows its own H0). */
  base?: HarnessSpec;
}

/** The path of the first place two JSON values differ, e.g. `prompt.system` or `tools.0`. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (canonicalJson(a) === canonicalJson(b)) return null;
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return path || '(root)';
    for (let index = 0; index < a.length; index += 1) {
      const found = firstDifference(a[index], b[index], path ? `${path}.${index}` : String(index));
      if (found) return found;
    }
  } else if (isObject(a) && isObject(b) && !Array.isArray(a) && !Array.isArray(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const found = firstDifference(a[key], b[key], path ? `${path}.${key}` : key);
      if (found) return found;
    }
  }
  return path || '(root)';
}

const fail = (where: string, message: string): never => {
  throw new ConfigError(`${where}: ${message}`, { code: 'bad-variant' });
};

/**
 * Validates a variant file's content: the schema (naming the field), that it is its base plus its
 * patch and nothing else, that its id is content-derived, and protocol compliance: the same action
 * codec as its base, only known transforms whose added actions call the environment's own tools,
 * and runtime rules the environment supports. Returns the parsed spec; throws a ConfigError
 * `WHERE: FIELD: reason` otherwise.
 */
export function validateVariant(input: unknown, where: string, options: VariantCheckOptions = {}): HarnessSpec {
  const parsed = HarnessSpec.safeParse(input);
  if (!parsed.success) return fail(where, formatZodError(parsed.error));
  const spec = parsed.data;
  if (!spec.patch) return fail(where, 'patch: a variant must say how it differs from its base');
  if (spec.parent === null) return fail(where, 'parent: a variant must name its parent');
  if (spec.direction === null) return fail(where, 'direction: a variant must name its repair direction');
  const base =
    options.base?.id === spec.patch.base && options.base.env === spec.env
      ? options.base
      : builtInHarnessSpec(spec.env, spec.patch.base);
  if (!base)
    return fail(
      where,
      `patch.base: no built-in harness '${spec.patch.base}' for environment '${spec.env}' (an environment of your own: registerBuiltInHarnesses('${spec.env}', { ${spec.patch.base}: ... }) first, or pass its base spec, e.g. loadPool(dir, { base }))`,
    );
  for (const field of ['schemaVersion', 'family', 'codec'] as const) {
    const difference = firstDifference(base[field], spec[field], field);
    if (difference) {
      return fail(where, `${difference}: differs from base '${base.id}' (a variant keeps its base's action protocol)`);
    }
  }
  let patched: ReturnType<typeof applyOperations>;
  try {
    patched = applyOperations(base, spec.patch.operations);
  } catch (error) {
    return fail(where, (error as Error).message);
  }
  const difference = firstDifference(patched, {
    prompt: spec.prompt,
    tools: spec.tools,
    context: spec.context,
    execution: spec.execution,
  });
  if (difference)
    return fail(
      where,
      `${difference}: differs from '${base.id}' plus the patch (change a variant only through its patch)`,
    );
  const expectedId = variantId(spec);
  if (spec.id !== expectedId) return fail(where, `id: '${spec.id}' is not the content-derived id '${expectedId}'`);

  try {
    createHarness(spec, where);
  } catch (error) {
    // Its message names `where` already.
    throw new ConfigError((error as Error).message, { code: 'bad-variant', cause: error });
  }
  const transforms = resolveTransforms(spec);
  if (options.envTools) {
    const offered = new Set(options.envTools.map((tool) => tool.name));
    transforms.forEach(({ transform }, index) => {
      const foreign = transform.emits.find((tool) => !offered.has(tool));
      if (foreign)
        fail(
          where,
          `tools.${index}.kind: transform '${transform.kind}' calls '${foreign}', which the environment does not offer`,
        );
    });
  }
  if (options.skills) {
    const known = new Set([...options.skills, actionFormatSkillDescription.name]);
    spec.prompt.directives.forEach((directive, index) => {
      if (directive.skill !== undefined && !known.has(directive.skill)) {
        fail(
          where,
          `prompt.directives.${index}.skill: '${directive.skill}' is not a skill of environment '${spec.env}'`,
        );
      }
    });
  }
  return spec;
}

/** Whether H0's codec can write exactly this action: encoding then decoding it gives it back. */
export function h0CanEmit(h0: Harness, action: Action, envTools: readonly ToolSpec[]): boolean {
  if (!envTools.some((tool) => tool.name === action.tool)) return false;
  const decoded = h0.codec.decode(h0.codec.encode([action]), envTools);
  if (!decoded.ok || decoded.actions.length !== 1) return false;
  // Text codecs may pad strings with whitespace; the action is the same.
  const normal = (value: Action) => canonicalJson(value).replace(/\s+/g, ' ').replace(/" /g, '"').replace(/ "/g, '"');
  return normal(decoded.actions[0]?.action as Action) === normal(action);
}

/** The result of checking a variant's trajectories against H0's protocol. */
export type ComplianceResult = { ok: true } | { ok: false; reason: string };

/**
 * Dynamic protocol compliance: every environment action recorded in the variant's trajectories
 * (including those its transforms added) is one H0 can emit, so each trajectory replays under H0.
 */
export function checkTrajectoryCompliance(
  trajectories: readonly Trajectory[],
  h0: Harness,
  envTools: readonly ToolSpec[],
): ComplianceResult {
  for (const trajectory of trajectories) {
    for (const turn of trajectory.turns) {
      for (const record of turn.actions) {
        if (!h0CanEmit(h0, record.action, envTools)) {
          return {
            ok: false,
            reason: `${trajectory.id} turn ${turn.index}: H0 cannot emit ${record.action.tool} ${JSON.stringify(record.action.arguments).slice(0, 120)}`,
          };
        }
      }
    }
  }
  return { ok: true };
}
