import { z } from 'zod';

/**
 * A short rule in the prompt, tagged with the repair direction it serves. Variants add, remove or
 * reword directives; the simulated policy reads the ones present in its context as cues.
 */
export const Directive = z.strictObject({
  /** Stable within a harness, e.g. `inspect-before-query`. */
  id: z.string().min(1),
  /** The text rendered into the system prompt. */
  text: z.string().min(1),
  /** The repair direction it serves (e.g. `schema-grounding`). */
  direction: z.string().min(1),
  /** The skill it asks for, when it names one of the environment's skills. */
  skill: z.string().optional(),
});
export type Directive = z.infer<typeof Directive>;

/** How assistant messages map to environment actions, and actions to messages. */
export const CodecSpec = z.strictObject({
  /** A codec known to the harness package, e.g. `tool-calls`, `dbbench-text`. */
  kind: z.string().min(1),
  /** Settings of codecs that take any (e.g. which environment tool `finish` stands for). */
  options: z.record(z.string(), z.unknown()).optional(),
});
export type CodecSpec = z.infer<typeof CodecSpec>;

/** A tool transform (for example a paginating wrapper); each expands into base actions. */
export const ToolTransformSpec = z.strictObject({
  kind: z.string().min(1),
  options: z.record(z.string(), z.unknown()).default({}),
  /**
   * The skill whose right branch the transform performs mechanically (a schema lookup before the
   * first call performs `inspect-table`): the policy no longer has to decide it.
   */
  skill: z.string().optional(),
});
export type ToolTransformSpec = z.infer<typeof ToolTransformSpec>;

/** What the policy sees of past turns. */
export const ContextRules = z.strictObject({
  /** Observations longer than this are cut and the marker appended; null keeps them whole. */
  maxObservationChars: z.number().int().positive().nullable(),
  truncationMarker: z.string(),
  /** Only the last N observations are shown in full; older ones are elided. Null keeps all. */
  keepLastObservations: z.number().int().positive().nullable(),
  /**
   * With `keepLastObservations`, an elided observation keeps its first N characters as a summary
   * after the marker instead of disappearing entirely. Absent: only the marker.
   */
  elidedSummaryChars: z.number().int().positive().optional(),
});
export type ContextRules = z.infer<typeof ContextRules>;

/** Limits and rules around the policy's turns. */
export const ExecutionRules = z.strictObject({
  /** Assistant turns at most (AgentBench's "rounds"). */
  maxSteps: z.number().int().positive(),
  /** The episode stops after this many consecutive turns the codec could not decode. */
  maxFormatErrors: z.number().int().positive(),
  /**
   * After a turn whose action failed, the harness adds `message` (a user message) telling the
   * policy to fix the action and retry: a second chance at the decision it failed.
   */
  retryOnError: z.strictObject({ message: z.string().min(1) }).optional(),
  /**
   * After a turn that changed the environment's state (as the harness package classifies the
   * environment's actions), the harness adds `message`, a reminder to check the change before
   * finishing; it asks for `skill`.
   */
  verifyAfterChange: z.strictObject({ message: z.string().min(1), skill: z.string().optional() }).optional(),
});

/** One step of a variant's patch: how it differs from its base harness. */
export const PatchOperation = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add-directive'), directive: Directive }),
  z.strictObject({ op: z.literal('remove-directive'), id: z.string().min(1) }),
  z.strictObject({ op: z.literal('add-tool-transform'), transform: ToolTransformSpec }),
  z.strictObject({ op: z.literal('set-context'), context: ContextRules.partial() }),
  z.strictObject({ op: z.literal('set-execution'), execution: ExecutionRules.partial() }),
]);
export type PatchOperation = z.infer<typeof PatchOperation>;

/**
 * A variant as "base plus patch": applying `operations` in order to the built-in harness `base`
 * of the same environment gives the variant's prompt, codec, tools, context and execution rules.
 */
export const HarnessPatch = z.strictObject({
  /** The built-in harness the operations apply to (`h0`). */
  base: z.string().min(1),
  operations: z.array(PatchOperation),
});
export type HarnessPatch = z.infer<typeof HarnessPatch>;
export type ExecutionRules = z.infer<typeof ExecutionRules>;

/**
 * A harness as data: everything around the policy that turns a task into context and the
 * policy's answers into environment actions. H0 is one spec; a variant is H0 plus a patch.
 */
export const HarnessSpec = z.strictObject({
  schemaVersion: z.literal(1),
  /** `h0` for a base harness; variants get a content-derived id. */
  id: z.string().min(1),
  /** The harness family (`dsh` for H0 and its descendants). */
  family: z.string().min(1),
  /** The environment this harness drives. */
  env: z.string().min(1),
  /** The harness it was derived from, or null for a base harness. */
  parent: z.string().nullable(),
  /** The repair direction it serves, or null for a base harness. */
  direction: z.string().nullable(),
  description: z.string(),
  prompt: z.strictObject({
    system: z.string(),
    /** The first user message; `{{instruction}}` is replaced by the task's instruction. */
    task: z.string(),
    directives: z.array(Directive),
  }),
  codec: CodecSpec,
  tools: z.array(ToolTransformSpec),
  context: ContextRules,
  execution: ExecutionRules,
  /** For a variant: its base harness and the operations that turn the base into it. */
  patch: HarnessPatch.optional(),
});
export type HarnessSpec = z.infer<typeof HarnessSpec>;
