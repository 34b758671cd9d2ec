import { z } from 'zod';

/**
 * The AppWorld environment server's wire format (`appworld serve environment`): JSON bodies,
 * replies wrapped as `{"output": ...}`, errors as `{"detail": ...}`. Read leniently: only the
 * fields this project uses are required, extra ones are ignored.
 */
export const SupervisorWire = z.object({
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  phone_number: z.string(),
});

/** What `/initialize` and `GET /tasks/{id}` answer. */
export const TaskInfoWire = z.object({
  task_id: z.string(),
  instruction: z.string(),
  supervisor: SupervisorWire,
  datetime: z.string().nullish(),
  /** Not in AppWorld's reply: this project's server adds it, since its code actions are JavaScript. */
  code_language: z.enum(['javascript', 'python']).nullish(),
});
export type TaskInfoWire = z.infer<typeof TaskInfoWire>;

/** What `/evaluate` answers. */
export const EvaluationWire = z.object({
  success: z.boolean(),
  difficulty: z.number().nullish(),
  num_tests: z.number().nullish(),
  passes: z.array(z.object({ requirement: z.string(), label: z.string().nullish() })).default([]),
  failures: z
    .array(z.object({ requirement: z.string(), trace: z.string().nullish(), label: z.string().nullish() }))
    .default([]),
});
export type EvaluationWire = z.infer<typeof EvaluationWire>;

/** Request bodies of the routes this project calls or serves. */
export const InitializeBody = z.object({ task_id: z.string().min(1) }).passthrough();
export const ExecuteBody = z.object({ task_id: z.string().min(1), code: z.string() });
export const BatchExecuteBody = z.object({ task_id: z.string().min(1), codes: z.array(z.string()) });
export const TaskBody = z.object({ task_id: z.string().min(1) }).passthrough();

/** Options the client sends with `/initialize` (AppWorld's names and meanings). */
export const initializeDefaults = {
  experiment_name: 'harness-s',
  raise_on_unsafe_syntax: true,
  random_seed: 100,
  max_interactions: 1000,
  max_api_calls_per_interaction: 1000,
};
