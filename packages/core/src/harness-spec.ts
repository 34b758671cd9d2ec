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
});
export type CodecSpec = z.infer<typeof CodecSpec>;

/** A tool transform (for example a paginating wrapper); each expands into base actions. */
export const ToolTransformSpec = z.strictObject({
  kind: z.string().min(1),
  options: z.record(z.string(), z.unknown()).default({}),
});
export type ToolTransformSpec = z.infer<typeof ToolTransformSpec>;

/** What the policy sees of past turns. */
export const ContextRules = z.strictObject({
  /** Observations longer than this are cut and the marker appended; null keeps them whole. */
  maxObservationChars: z.number().int().positive().nullable(),
  truncationMarker: z.string(),
  /** Only the last N observations are shown in full; older ones are elided. Null keeps all. */
  keepLastObservations: z.number().int().positive().nullable(),
});
export type ContextRules = z.infer<typeof ContextRules>;

/** Limits and rules around the policy's turns. */
export const ExecutionRules = z.strictObject({
  /** Assistant turns at most (AgentBench's "rounds"). */
  maxSteps: z.number().int().positive(),
  /** The episode stops after this many consecutive turns the codec could not decode. */
  maxFormatErrors: z.number().int().positive(),
});
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
});
export type HarnessSpec = z.infer<typeof HarnessSpec>;
