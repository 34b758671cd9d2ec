import { z } from 'zod';
import { SolvedRule, solvedTasks, unionOf } from './coverage.js';

/** One harness's validation results: successes per task out of k paired attempts. */
export const ValidationResult = z.strictObject({
  perTask: z.record(z.string(), z.number().int().nonnegative()),
  avgAtK: z.number().min(0).max(1),
});
export type ValidationResult = z.infer<typeof ValidationResult>;

/** A pool member (or a rejected candidate) with its lineage and results. */
export const VariantRecord = z.strictObject({
  id: z.string(),
  parent: z.string().nullable(),
  direction: z.string().nullable(),
  /** The round that made it (0 for H0). */
  round: z.number().int().nonnegative(),
  description: z.string(),
  /** The operators of its last change (`directive`, `tool-transform`, `llm-proposer`...). */
  operator: z.string(),
  status: z.enum(['accepted', 'rejected']),
  /** Why it was rejected (schema, protocol, not executable). */
  reason: z.string().optional(),
  validation: ValidationResult.optional(),
});
export type VariantRecord = z.infer<typeof VariantRecord>;

/** One round of evolution: the parents chosen and the children made from them. */
export const RoundRecord = z.strictObject({
  round: z.number().int().positive(),
  parents: z.array(z.string()),
  selection: z.strictObject({ method: z.enum(['exhaustive', 'greedy']), covered: z.number().int() }),
  children: z.array(z.string()),
});
export type RoundRecord = z.infer<typeof RoundRecord>;

/** `index.json` of a pool folder: lineage, directions and per-task validation results. */
export const PoolIndex = z.strictObject({
  schemaVersion: z.literal(1),
  env: z.string(),
  split: z.string(),
  /** The validation tasks, in order. */
  validationTasks: z.array(z.string()),
  k: z.number().int().positive(),
  seed: z.number().int(),
  solvedRule: SolvedRule,
  policy: z.strictObject({ id: z.string(), version: z.string() }),
  h0: VariantRecord,
  members: z.array(VariantRecord),
  rejected: z.array(VariantRecord),
  rounds: z.array(RoundRecord),
});
export type PoolIndex = z.infer<typeof PoolIndex>;

/** How one pool member compares with H0 on the validation tasks. */
export const VariantReport = z.strictObject({
  id: z.string(),
  parent: z.string().nullable(),
  direction: z.string().nullable(),
  round: z.number().int(),
  coverage: z.number(),
  avgAtK: z.number(),
  /** Tasks it solves that H0 does not. */
  helps: z.array(z.string()),
  /** Tasks H0 solves that it does not (locality). */
  hurts: z.array(z.string()),
  /** Tasks no other member solves. */
  unique: z.array(z.string()),
});
export type VariantReport = z.infer<typeof VariantReport>;

/** `summary.json` of a pool folder. Coverages are fractions of the validation tasks. */
export const PoolSummary = z.strictObject({
  schemaVersion: z.literal(1),
  env: z.string(),
  split: z.string(),
  validationTasks: z.number().int(),
  k: z.number().int(),
  solvedRule: SolvedRule,
  rounds: z.number().int(),
  poolSize: z.number().int(),
  rejected: z.number().int(),
  /** Solved by H0. */
  h0Coverage: z.number(),
  /** Solved by the best single member. */
  bestSingleCoverage: z.number(),
  bestSingle: z.string().nullable(),
  /** Solved by at least one member of the pool. */
  jointCoverage: z.number(),
  /** Solved by H0 or at least one member (what rescue can reach). */
  jointCoverageWithH0: z.number(),
  variants: z.array(VariantReport),
  locality: z.strictObject({
    /** Members that solve a task H0 does not. */
    help: z.number().int(),
    /** Members that lose a task H0 solves. */
    hurt: z.number().int(),
    /** Members that do both: a fix that is local. */
    helpAndHurt: z.number().int(),
  }),
  complementarity: z.strictObject({
    /** Distinct solved sets among members. */
    distinctSolvedSets: z.number().int(),
    /** Pairs of members where each solves a task the other does not. */
    mutuallyComplementaryPairs: z.number().int(),
    /** Every pair: tasks only `a` solves, only `b` solves, and the Jaccard distance of their solved sets. */
    pairs: z.array(
      z.strictObject({
        a: z.string(),
        b: z.string(),
        onlyA: z.number().int(),
        onlyB: z.number().int(),
        distance: z.number(),
      }),
    ),
  }),
});
export type PoolSummary = z.infer<typeof PoolSummary>;

/** The solved set of a record under a rule (empty without results). */
function solvedOf(record: VariantRecord, rule: SolvedRule, k: number): Set<string> {
  const perTask = Object.entries(record.validation?.perTask ?? {}).map(([id, successes]) => ({
    id,
    attempts: k,
    successes,
  }));
  return solvedTasks(perTask, rule);
}

/** Locality, complementarity and coverages of a pool, from its index. */
export function summarisePool(index: PoolIndex): PoolSummary {
  const total = index.validationTasks.length;
  const fraction = (count: number) => (total === 0 ? 0 : count / total);
  const h0 = solvedOf(index.h0, index.solvedRule, index.k);
  const members = index.members.map((record) => ({ record, solved: solvedOf(record, index.solvedRule, index.k) }));
  const variants: VariantReport[] = members.map(({ record, solved }) => {
    const others = unionOf(members.filter((other) => other.record.id !== record.id).map((other) => other.solved));
    return {
      id: record.id,
      parent: record.parent,
      direction: record.direction,
      round: record.round,
      coverage: fraction(solved.size),
      avgAtK: record.validation?.avgAtK ?? 0,
      helps: [...solved].filter((id) => !h0.has(id)).sort(),
      hurts: [...h0].filter((id) => !solved.has(id)).sort(),
      unique: [...solved].filter((id) => !others.has(id)).sort(),
    };
  });
  const best = [...variants].sort(
    (a, b) => b.coverage - a.coverage || b.avgAtK - a.avgAtK || a.id.localeCompare(b.id),
  )[0];
  const joint = unionOf(members.map((member) => member.solved));
  const pairs: PoolSummary['complementarity']['pairs'] = [];
  for (let i = 0; i < members.length; i += 1) {
    for (let j = i + 1; j < members.length; j += 1) {
      const a = members[i];
      const b = members[j];
      if (!a || !b) continue;
      const onlyA = [...a.solved].filter((id) => !b.solved.has(id)).length;
      const onlyB = [...b.solved].filter((id) => !a.solved.has(id)).length;
      const union = unionOf([a.solved, b.solved]).size;
      pairs.push({ a: a.record.id, b: b.record.id, onlyA, onlyB, distance: union === 0 ? 0 : (onlyA + onlyB) / union });
    }
  }
  return {
    schemaVersion: 1,
    env: index.env,
    split: index.split,
    validationTasks: total,
    k: index.k,
    solvedRule: index.solvedRule,
    rounds: index.rounds.length,
    poolSize: members.length,
    rejected: index.rejected.length,
    h0Coverage: fraction(h0.size),
    bestSingleCoverage: best?.coverage ?? 0,
    bestSingle: best?.id ?? null,
    jointCoverage: fraction(joint.size),
    jointCoverageWithH0: fraction(unionOf([joint, h0]).size),
    variants,
    locality: {
      help: variants.filter((variant) => variant.helps.length > 0).length,
      hurt: variants.filter((variant) => variant.hurts.length > 0).length,
      helpAndHurt: variants.filter((variant) => variant.helps.length > 0 && variant.hurts.length > 0).length,
    },
    complementarity: {
      distinctSolvedSets: new Set(members.map((member) => [...member.solved].sort().join(','))).size,
      mutuallyComplementaryPairs: pairs.filter((pair) => pair.onlyA > 0 && pair.onlyB > 0).length,
      pairs,
    },
  };
}
