/**
 * A rescue study in brief, as results.json and the report keep it, and the studies of several
 * runs pooled per environment: the table that answers "adaptive or fixed profiles, m x 1 or
 * m/2 x 2" on many more failed groups than training runs meet.
 */
import { type RescueArm, rescueArms } from '@harness-s/router';
import { z } from 'zod';

const Paired = z.object({ onlyFirst: z.number().int(), onlySecond: z.number().int() });

/** One studied step: its groups, and how many failed ones each arm rescued. */
export const StudyStageSummary = z.object({
  step: z.number().int(),
  groups: z.number().int(),
  allFailed: z.number().int(),
  /** Failed groups rescued per arm (`random` is an expectation, so it may be fractional). */
  rescued: z.record(z.string(), z.number()),
  adaptiveVsFixed: Paired,
  fullVsHalf: Paired,
});
export type StudyStageSummary = z.infer<typeof StudyStageSummary>;

/** A training run's rescue study without its cases (those stay in the run's rescue-study.json). */
export const RescueStudySummary = z.object({
  /** H0 groups drawn per task and step. */
  reps: z.number().int(),
  /** Rescue width m. */
  variants: z.number().int(),
  stages: z.array(StudyStageSummary),
});
export type RescueStudySummary = z.infer<typeof RescueStudySummary>;

/**
 * What is read back of a `rescue-study.json` (the cases are not): enough to summarize it and to
 * tell which settings it was made with.
 */
export const RescueStudyFile = z.object({
  reps: z.number().int(),
  variants: z.number().int(),
  seed: z.number().int(),
  carryOver: z.number(),
  profileK: z.number().int().optional(),
  profiles: z.string().optional(),
  failureRanker: z.number().optional(),
  stages: z.array(
    z.object({
      step: z.number().int(),
      groups: z.number().int(),
      allFailed: z.number().int(),
      arms: z.record(z.string(), z.object({ rescued: z.number() })),
      adaptiveVsFixed: Paired,
      fullVsHalf: Paired,
    }),
  ),
});
export type RescueStudyFile = z.infer<typeof RescueStudyFile>;

/** A study in brief, from a run's study or from its file. */
export const summarizeRescueStudy = (study: RescueStudyFile): RescueStudySummary => ({
  reps: study.reps,
  variants: study.variants,
  stages: summarizeStudyStages(study.stages),
});

function summarizeStudyStages(stages: RescueStudyFile['stages']): StudyStageSummary[] {
  return stages.map((stage) => ({
    step: stage.step,
    groups: stage.groups,
    allFailed: stage.allFailed,
    rescued: Object.fromEntries(rescueArms.map((arm) => [arm, stage.arms[arm]?.rescued ?? 0])),
    adaptiveVsFixed: { onlyFirst: stage.adaptiveVsFixed.onlyFirst, onlySecond: stage.adaptiveVsFixed.onlySecond },
    fullVsHalf: { ...stage.fullVsHalf },
  }));
}

/** The studies of one environment's runs at one phase, pooled: sums of groups and of rescues. */
export interface PooledStudy {
  env: string;
  /** `before training` (step 0) or `training` (every later step studied). */
  phase: 'before training' | 'training';
  steps: number[];
  runs: number;
  variants: number;
  groups: number;
  allFailed: number;
  /** Rescued share of the pooled failed groups per arm (null when none failed). */
  rates: Record<RescueArm, number | null>;
  adaptiveVsFixed: { onlyFirst: number; onlySecond: number };
  fullVsHalf: { onlyFirst: number; onlySecond: number };
}

/**
 * Pools the studies of runs per environment and phase. Pooling counts (not averaging per-run
 * rates) weighs every failed group alike, as the paired comparisons do.
 */
export function poolRescueStudies(
  records: ReadonlyArray<{ env: string; rescueStudy?: RescueStudySummary | undefined }>,
): PooledStudy[] {
  const pooled = new Map<string, PooledStudy & { rescued: Record<RescueArm, number> }>();
  for (const record of records) {
    const study = record.rescueStudy;
    if (!study) continue;
    const phases = new Set<string>();
    for (const stage of study.stages) {
      const phase = stage.step === 0 ? 'before training' : 'training';
      const key = `${record.env}\u0000${phase}\u0000${study.variants}`;
      let entry = pooled.get(key);
      if (!entry) {
        entry = {
          env: record.env,
          phase,
          steps: [],
          runs: 0,
          variants: study.variants,
          groups: 0,
          allFailed: 0,
          rates: Object.fromEntries(rescueArms.map((arm) => [arm, null])) as Record<RescueArm, number | null>,
          rescued: Object.fromEntries(rescueArms.map((arm) => [arm, 0])) as Record<RescueArm, number>,
          adaptiveVsFixed: { onlyFirst: 0, onlySecond: 0 },
          fullVsHalf: { onlyFirst: 0, onlySecond: 0 },
        };
        pooled.set(key, entry);
      }
      if (!phases.has(key)) {
        phases.add(key);
        entry.runs += 1;
      }
      if (!entry.steps.includes(stage.step)) entry.steps.push(stage.step);
      entry.groups += stage.groups;
      entry.allFailed += stage.allFailed;
      for (const arm of rescueArms) entry.rescued[arm] += stage.rescued[arm] ?? 0;
      entry.adaptiveVsFixed.onlyFirst += stage.adaptiveVsFixed.onlyFirst;
      entry.adaptiveVsFixed.onlySecond += stage.adaptiveVsFixed.onlySecond;
      entry.fullVsHalf.onlyFirst += stage.fullVsHalf.onlyFirst;
      entry.fullVsHalf.onlySecond += stage.fullVsHalf.onlySecond;
    }
  }
  return [...pooled.values()].map(({ rescued, ...entry }) => ({
    ...entry,
    steps: entry.steps.sort((a, b) => a - b),
    rates: Object.fromEntries(
      rescueArms.map((arm) => [arm, entry.allFailed ? rescued[arm] / entry.allFailed : null]),
    ) as Record<RescueArm, number | null>,
  }));
}

/** The two rescue shapes a study compares for rescue width m: m x 1 and m/2 x 2. */
export function studyShapes(m: number): { full: string; half: string } {
  return { full: `${m}x1`, half: `${Math.max(1, Math.floor(m / 2))}x2` };
}

/** Column headings of the pooled study's arms, in table order, for rescue width m. */
export function studyArmHeadings(m: number): Array<[RescueArm, string]> {
  const { full, half } = studyShapes(m);
  return [
    ['adaptive', `adaptive ${full}`],
    ['fixed', `fixed ${full}`],
    ['adaptive-half', `adaptive ${half}`],
    ['random', `random ${full}`],
    ['h0-resample', `H0 x${m}`],
    ['ceiling', 'any variant'],
  ];
}

/** "+a / -b": groups only the first arm rescued, and only the second. */
export const pairedText = (paired: { onlyFirst: number; onlySecond: number }): string =>
  `+${paired.onlyFirst} / -${paired.onlySecond}`;
