import { createHash } from 'node:crypto';
import {
  ContextRules,
  ExecutionRules,
  type Harness,
  type HarnessSpec,
  type PatchOperation,
  type Policy,
  type SkillDescription,
} from '@harness-s/core';
import { z } from 'zod';
import { actionFormatSkillDescription, environmentExtras } from '../variants/extras.js';
import type { RepairDirection } from '../variants/operators.js';
import type { ProposedChange } from '../variants/patch.js';
import { askPolicy, extractJson } from './llm-chat.js';

/** The answer the model must give: changes built only from parts the harness package knows. */
export function llmProposalSchema(skills: readonly string[], transformKinds: readonly string[]) {
  const oneOf = (names: readonly string[]) =>
    z.string().refine((name) => names.includes(name), { message: `must be one of ${names.join(', ') || '(none)'}` });
  return z.strictObject({
    changes: z
      .array(
        z.strictObject({
          description: z.string().min(1).max(300),
          directives: z
            .array(z.strictObject({ text: z.string().min(1).max(400), skill: oneOf(skills).optional() }))
            .default([]),
          transforms: z.array(oneOf(transformKinds)).default([]),
          execution: ExecutionRules.partial().optional(),
          context: ContextRules.partial().optional(),
        }),
      )
      .min(1),
  });
}

export interface LlmProposerOptions {
  policy: Policy;
  /** A harness of the environment to open chat sessions under. */
  harness: Harness;
  skills: readonly SkillDescription[];
  log?: (line: string) => void;
}

/** Proposes changes of a parent for a repair direction. */
export interface ChangeProposer {
  readonly id: string;
  propose(parent: HarnessSpec, direction: RepairDirection, examples: readonly string[]): Promise<ProposedChange[]>;
}

const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 8);

/**
 * A proposer that asks a model for harness changes serving a direction, given the parent and
 * examples of the failures. The answer must match `llmProposalSchema` (known skills and transform
 * kinds, valid rule fields); any other answer is logged and yields no changes.
 */
export function createLlmProposer(options: LlmProposerOptions): ChangeProposer {
  const extras = environmentExtras(options.harness.spec.env);
  const skills = [...options.skills, actionFormatSkillDescription];
  const transforms = extras.transforms;
  const schema = llmProposalSchema(
    skills.map((skill) => skill.name),
    transforms.map((transform) => transform.kind),
  );
  const system = [
    'You improve the harness of an AI agent (its prompt rules, tool transforms, context and execution rules) to repair one kind of failure.',
    'Answer with one JSON object and nothing else:',
    '{"changes": [{"description": "...", "directives": [{"text": "...", "skill": "..."}], "transforms": ["..."], "execution": {...}, "context": {...}}]}',
    `Directive skills: ${skills.map((skill) => `${skill.name} (${skill.description})`).join('; ')}.`,
    `Transforms: ${transforms.map((transform) => `${transform.kind} (${transform.description})`).join('; ') || '(none)'}.`,
    'execution may set maxSteps, maxFormatErrors, retryOnError {"message"}, verifyAfterChange {"message", "skill"}; context may set maxObservationChars, keepLastObservations, elidedSummaryChars.',
    'Propose one to three small, different changes.',
  ].join('\n');

  const toChange = (
    direction: RepairDirection,
    proposal: z.infer<ReturnType<typeof llmProposalSchema>>['changes'][number],
  ): ProposedChange | null => {
    const operations: PatchOperation[] = [];
    for (const directive of proposal.directives) {
      operations.push({
        op: 'add-directive',
        directive: {
          id: `llm-${shortHash(directive.text)}`,
          text: directive.text,
          direction: direction.name,
          ...(directive.skill ? { skill: directive.skill } : {}),
        },
      });
    }
    for (const kind of new Set(proposal.transforms)) {
      const transform = transforms.find((candidate) => candidate.kind === kind);
      if (!transform) continue;
      operations.push(
        {
          op: 'add-tool-transform',
          transform: { kind, options: {}, ...(transform.skill ? { skill: transform.skill } : {}) },
        },
        {
          op: 'add-directive',
          directive: {
            id: `note-${kind}`,
            text: transform.note,
            direction: direction.name,
            ...(transform.skill ? { skill: transform.skill } : {}),
          },
        },
      );
    }
    if (proposal.execution && Object.keys(proposal.execution).length > 0) {
      operations.push({ op: 'set-execution', execution: proposal.execution });
    }
    if (proposal.context && Object.keys(proposal.context).length > 0)
      operations.push({ op: 'set-context', context: proposal.context });
    if (operations.length === 0) return null;
    return { operator: 'llm-proposer', direction: direction.name, description: proposal.description, operations };
  };

  return {
    id: `llm:${options.policy.id}`,
    async propose(parent, direction, examples) {
      const user = [
        `Repair direction: ${direction.name} (causes: ${direction.causes.join(', ')}; skills: ${direction.skills.join(', ') || 'none'}).`,
        `Current rules: ${parent.prompt.directives.map((directive) => `"${directive.text}"`).join(' ') || '(none)'}`,
        `Current transforms: ${parent.tools.map((tool) => tool.kind).join(', ') || '(none)'}; execution: ${JSON.stringify(parent.execution)}; context: ${JSON.stringify(parent.context)}.`,
        'Failures:',
        ...examples.slice(0, 3).map((example, index) => `--- failure ${index + 1}\n${example}`),
      ].join('\n');
      let text: string;
      try {
        text = await askPolicy(options.policy, options.harness, system, user);
      } catch (error) {
        options.log?.(`proposer ${options.policy.id}: request failed (${(error as Error).message}); no proposals`);
        return [];
      }
      const json = extractJson(text);
      const parsed = json instanceof Error ? null : schema.safeParse(json);
      if (!parsed?.success) {
        const reason =
          json instanceof Error
            ? json.message
            : `${parsed?.error.issues[0]?.path.join('.') || '(root)'}: ${parsed?.error.issues[0]?.message}`;
        options.log?.(`proposer ${options.policy.id}: unusable answer for ${direction.name} (${reason}); no proposals`);
        return [];
      }
      return parsed.data.changes.flatMap((proposal) => {
        const change = toChange(direction, proposal);
        return change ? [change] : [];
      });
    },
  };
}
