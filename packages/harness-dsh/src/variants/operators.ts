import type { Directive, HarnessSpec, SkillDescription } from '@harness-s/core';
import { actionFormatSkillDescription, type EnvironmentExtras, transformFits } from './extras.js';
import type { ProposedChange } from './patch.js';

/**
 * A repair direction: failure causes that one kind of fix addresses, e.g. `schema-grounding`
 * (guessed columns) or `error-recovery` (giving up after an error).
 */
export interface RepairDirection {
  name: string;
  /** The skills whose failures it groups (none for directions such as `step-budget`). */
  skills: string[];
  /** The cause kinds it groups. */
  causes: string[];
  /** The failed tasks that show it. */
  tasks: string[];
}

/** What an operator may use besides the parent and the direction. */
export interface OperatorContext {
  /** The environment's skills with their descriptions. */
  skills: readonly SkillDescription[];
  extras: EnvironmentExtras;
}

/** A variant operator: proposes changes of a parent for a direction (none when it does not apply). */
export interface VariantOperator {
  readonly name: string;
  /** Which part of the harness it changes. */
  readonly part: 'prompt' | 'tool' | 'context' | 'execution';
  propose(parent: HarnessSpec, direction: RepairDirection, context: OperatorContext): ProposedChange[];
}

const hasDirective = (parent: HarnessSpec, id: string) =>
  parent.prompt.directives.some((directive) => directive.id === id);

/** The wordings of a rule asking for a skill: the environment's own, else one from its description. */
export function directiveWordings(skill: string, context: OperatorContext): string[] {
  const own = context.extras.directiveTexts?.[skill];
  if (own && own.length > 0) return [...own];
  const description =
    context.skills.find((item) => item.name === skill)?.description ??
    (skill === actionFormatSkillDescription.name
      ? actionFormatSkillDescription.description
      : skill.replaceAll('-', ' '));
  return [`Always ${description}.`];
}

/**
 * A directive. Notes that describe a mechanism (a transform, a rule) name no skill: they tell the
 * policy what the harness does rather than ask for a behaviour, and still take up attention.
 */
const note = (id: string, text: string, direction: string, skill?: string): Directive => ({
  id,
  text,
  direction,
  ...(skill ? { skill } : {}),
});

/** Adds a rule for each skill of the direction (a short directive in the system prompt). */
const directiveOperator = (wording: 'preferred' | 'alternative'): VariantOperator => {
  const name = wording === 'preferred' ? 'directive' : 'directive-rewording';
  return {
    name,
    part: 'prompt',
    propose(parent, direction, context) {
      const skills = direction.skills.length > 0 ? direction.skills : [];
      return skills.flatMap((skill): ProposedChange[] => {
        const id = `rule-${skill}`;
        const text = directiveWordings(skill, context)[wording === 'preferred' ? 0 : 1];
        if (!text || hasDirective(parent, id)) return [];
        return [
          {
            operator: name,
            direction: direction.name,
            description: `rule for ${skill}: "${text}"`,
            operations: [{ op: 'add-directive', directive: note(id, text, direction.name, skill) }],
          },
        ];
      });
    },
  };
};

/** Adds each of the environment's tool transforms that serves the direction, with a note saying what it does. */
const toolTransformOperator: VariantOperator = {
  name: 'tool-transform',
  part: 'tool',
  propose(parent, direction, context) {
    return context.extras.transforms
      .filter(
        (transform) =>
          (transform.skill !== undefined && direction.skills.includes(transform.skill)) ||
          transform.direction === direction.name,
      )
      .filter((transform) => !parent.tools.some((tool) => tool.kind === transform.kind))
      .filter((transform) => transformFits(transform, parent, context.extras))
      .map((transform) => ({
        operator: 'tool-transform',
        direction: direction.name,
        description: `${transform.kind}: ${transform.description}`,
        operations: [
          {
            op: 'add-tool-transform' as const,
            transform: { kind: transform.kind, options: {}, ...(transform.skill ? { skill: transform.skill } : {}) },
          },
          { op: 'add-directive' as const, directive: note(`note-${transform.kind}`, transform.note, direction.name) },
        ],
      }));
  },
};

/** After a failed action the harness says so and the policy retries: for directions about errors. */
const retryOnErrorOperator: VariantOperator = {
  name: 'retry-on-error',
  part: 'execution',
  propose(parent, direction, context) {
    const skill = context.extras.recoverySkill;
    const serves = direction.name === 'error-recovery' || (skill !== undefined && direction.skills.includes(skill));
    if (!serves || parent.execution.retryOnError) return [];
    return [
      {
        operator: 'retry-on-error',
        direction: direction.name,
        description: 'retry on error: after a failed action the harness asks for a fixed retry',
        operations: [
          {
            op: 'set-execution',
            execution: {
              retryOnError: { message: 'That action failed. Read the error, fix the action and try again.' },
            },
          },
          {
            op: 'add-directive',
            directive: note(
              'note-retry-on-error',
              'When an action fails, the harness tells you and you retry it with a fix.',
              direction.name,
            ),
          },
        ],
      },
    ];
  },
};

/** After every change of state the harness reminds the policy to check it: for verification directions. */
const verifyAfterChangeOperator: VariantOperator = {
  name: 'verify-after-change',
  part: 'execution',
  propose(parent, direction, context) {
    const skill = context.extras.verificationSkill;
    const serves = direction.name === 'verification' || (skill !== undefined && direction.skills.includes(skill));
    if (!serves || !context.extras.changesState || parent.execution.verifyAfterChange) return [];
    return [
      {
        operator: 'verify-after-change',
        direction: direction.name,
        description: 'verify after change: a reminder to check every change before finishing',
        operations: [
          {
            op: 'set-execution',
            execution: {
              verifyAfterChange: {
                message:
                  'You changed the state. Check the change now, and repair it if it is wrong, before you finish.',
                ...(skill ? { skill } : {}),
              },
            },
          },
          {
            op: 'add-directive',
            directive: note(
              'note-verify-after-change',
              'After each change the harness asks you to check it before you finish.',
              direction.name,
            ),
          },
        ],
      },
    ];
  },
};

/** More steps, or more tolerance of malformed turns, for directions about running out of turns. */
const limitsOperator: VariantOperator = {
  name: 'limits',
  part: 'execution',
  propose(parent, direction) {
    if (direction.name === 'step-budget') {
      const maxSteps = Math.ceil(parent.execution.maxSteps * 1.5);
      return [
        {
          operator: 'limits',
          direction: direction.name,
          description: `step limit ${parent.execution.maxSteps} -> ${maxSteps}`,
          operations: [{ op: 'set-execution', execution: { maxSteps } }],
        },
      ];
    }
    if (direction.name === actionFormatSkillDescription.name) {
      const maxFormatErrors = parent.execution.maxFormatErrors + 2;
      return [
        {
          operator: 'limits',
          direction: direction.name,
          description: `format-error limit ${parent.execution.maxFormatErrors} -> ${maxFormatErrors}`,
          operations: [{ op: 'set-execution', execution: { maxFormatErrors } }],
        },
      ];
    }
    return [];
  },
};

/** Longer observations, or summaries of elided ones, for directions about lost context. */
const contextOperator: VariantOperator = {
  name: 'context',
  part: 'context',
  propose(parent, direction) {
    if (direction.name !== 'context') return [];
    const changes: ProposedChange[] = [];
    const { maxObservationChars, keepLastObservations, elidedSummaryChars } = parent.context;
    if (maxObservationChars !== null) {
      changes.push({
        operator: 'context',
        direction: direction.name,
        description: `observations cut at ${maxObservationChars * 2} characters instead of ${maxObservationChars}`,
        operations: [{ op: 'set-context', context: { maxObservationChars: maxObservationChars * 2 } }],
      });
    }
    if (keepLastObservations !== null && elidedSummaryChars === undefined) {
      changes.push({
        operator: 'context',
        direction: direction.name,
        description: 'elided observations keep a 120-character summary',
        operations: [{ op: 'set-context', context: { elidedSummaryChars: 120 } }],
      });
    }
    return changes;
  },
};

/**
 * The operator library, in the order their proposals are preferred: mechanical fixes first (a
 * transform or rule removes or retries a decision), then rules in the prompt, then context, then
 * rewordings. `childrenPerDirection` takes proposals from the front.
 */
export const variantOperators: readonly VariantOperator[] = [
  toolTransformOperator,
  retryOnErrorOperator,
  verifyAfterChangeOperator,
  directiveOperator('preferred'),
  limitsOperator,
  contextOperator,
  directiveOperator('alternative'),
];

/** Every change the library proposes for a parent and a direction, in preference order. */
export function proposeChanges(
  parent: HarnessSpec,
  direction: RepairDirection,
  context: OperatorContext,
): ProposedChange[] {
  return variantOperators.flatMap((operator) => operator.propose(parent, direction, context));
}
