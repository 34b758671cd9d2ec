import { ConfigError, formatZodError, HarnessSpec, type PatchOperation } from '@harness-s/core';
import { variantId } from './variant-id.js';

/** The parts of a spec a patch may change. */
type Mechanics = Pick<HarnessSpec, 'prompt' | 'tools' | 'context' | 'execution'>;

/** Applies one patch operation to a harness's mechanics; an operation that cannot apply throws. */
function applyOperation(mechanics: Mechanics, operation: PatchOperation, index: number): Mechanics {
  switch (operation.op) {
    case 'add-directive': {
      if (mechanics.prompt.directives.some((directive) => directive.id === operation.directive.id)) {
        throw new ConfigError(
          `patch.operations.${index}.directive.id: directive '${operation.directive.id}' already exists`,
          {
            code: 'bad-patch',
          },
        );
      }
      return {
        ...mechanics,
        prompt: { ...mechanics.prompt, directives: [...mechanics.prompt.directives, operation.directive] },
      };
    }
    case 'remove-directive': {
      const directives = mechanics.prompt.directives.filter((directive) => directive.id !== operation.id);
      if (directives.length === mechanics.prompt.directives.length) {
        throw new ConfigError(`patch.operations.${index}.id: no directive '${operation.id}' to remove`, {
          code: 'bad-patch',
        });
      }
      return { ...mechanics, prompt: { ...mechanics.prompt, directives } };
    }
    case 'add-tool-transform':
      if (mechanics.tools.some((transform) => transform.kind === operation.transform.kind)) {
        throw new ConfigError(
          `patch.operations.${index}.transform.kind: '${operation.transform.kind}' is already there`,
          {
            code: 'bad-patch',
          },
        );
      }
      return { ...mechanics, tools: [...mechanics.tools, operation.transform] };
    case 'set-context':
      return { ...mechanics, context: { ...mechanics.context, ...operation.context } };
    case 'set-execution':
      return { ...mechanics, execution: { ...mechanics.execution, ...operation.execution } };
  }
}

/** A base harness's mechanics after the operations, in order. */
export function applyOperations(base: HarnessSpec, operations: readonly PatchOperation[]): Mechanics {
  let mechanics: Mechanics = {
    prompt: base.prompt,
    tools: base.tools,
    context: base.context,
    execution: base.execution,
  };
  operations.forEach((operation, index) => {
    mechanics = applyOperation(mechanics, operation, index);
  });
  return mechanics;
}

/** A change an operator proposes for a parent: what it is for and the operations it adds. */
export interface ProposedChange {
  /** The operator that proposed it, e.g. `directive`, `tool-transform`, `retry-on-error`. */
  operator: string;
  /** The repair direction it serves. */
  direction: string;
  /** One line saying what it changes. */
  description: string;
  operations: PatchOperation[];
}

/**
 * A child of `parent`: the parent's patch plus the change's operations applied to the base, with
 * parent, direction, a description and its content-derived id.
 */
export function deriveVariant(base: HarnessSpec, parent: HarnessSpec, change: ProposedChange): HarnessSpec {
  const operations = [...(parent.patch?.operations ?? []), ...change.operations];
  const mechanics = applyOperations(base, operations);
  const lineage = parent.patch ? `${parent.description} + ` : '';
  const spec: HarnessSpec = {
    ...base,
    ...mechanics,
    id: '',
    parent: parent.id,
    direction: change.direction,
    description: `${lineage}${change.description}`,
    patch: { base: parent.patch?.base ?? base.id, operations },
  };
  // The id is of the spec as it is stored and read back: with the schema's defaults filled in (a
  // tool transform's `options`, for one), so that validating the variant finds the same id.
  const parsed = HarnessSpec.safeParse({ ...spec, id: 'pending' });
  if (!parsed.success)
    throw new ConfigError(`variant of ${parent.id} (${change.description}): ${formatZodError(parsed.error)}`, {
      code: 'bad-variant',
    });
  return { ...parsed.data, id: variantId(parsed.data) };
}
