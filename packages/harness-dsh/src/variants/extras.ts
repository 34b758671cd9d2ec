import type { HarnessSpec, SkillDescription } from '@harness-s/core';
import { appworldExtras } from './extras-appworld.js';
import { dbbenchExtras } from './extras-dbbench.js';
import { swegymExtras } from './extras-swegym.js';
import type { EnvironmentExtras, ToolTransform } from './extras-types.js';

export type { EnvironmentExtras, FailureSignal, ToolTransform } from './extras-types.js';

/** The skill of writing every turn as one well-formed action: every environment has it. */
export const actionFormatSkillDescription: SkillDescription = {
  name: 'action-format',
  description: 'write every reply as exactly one well-formed action',
};

/** Extras by environment; an environment package's extras are added here (one line each). */
const registry = new Map<string, EnvironmentExtras>(
  [dbbenchExtras, swegymExtras, appworldExtras].map((extras) => [extras.env, extras]),
);

/** Registers (or replaces) an environment's extras, e.g. from a test or a plug-in. */
export function registerEnvironmentExtras(extras: EnvironmentExtras): void {
  registry.set(extras.env, extras);
}

/** Removes an environment's extras (a plug-in refused after it registered them). */
export function unregisterEnvironmentExtras(env: string): void {
  registry.delete(env);
}

/** Whether an environment has extras registered (a plug-in may have none). */
export const hasEnvironmentExtras = (env: string): boolean => registry.has(env);

/** An environment's extras, or empty ones. */
export function environmentExtras(env: string): EnvironmentExtras {
  return registry.get(env) ?? { env, transforms: [] };
}

/** Whether a transform works in a harness's code language (always, for a transform that writes no code). */
export function transformFits(
  transform: ToolTransform,
  spec: HarnessSpec,
  extras: EnvironmentExtras = environmentExtras(spec.env),
): boolean {
  if (!transform.languages) return true;
  const language = extras.codeLanguage?.(spec);
  return language === undefined || transform.languages.includes(language);
}

/** The direction a skill's failures are repaired in. */
export function directionOfSkill(extras: EnvironmentExtras, skill: string): string {
  return extras.skillDirections?.[skill] ?? skill;
}

/** A transform of an environment by kind, or undefined. */
export function findTransform(env: string, kind: string): ToolTransform | undefined {
  return environmentExtras(env).transforms.find((transform) => transform.kind === kind);
}
