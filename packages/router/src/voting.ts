/** One ranker's ranking of the candidates, best first, and the ranker's weight. */
export interface WeightedRanking {
  rankerId: string;
  weight: number;
  ranking: readonly string[];
}

export interface VoteResult {
  /** Every candidate, best first. */
  order: string[];
  scores: Record<string, number>;
}

/**
 * Weighted rank voting: a ranker gives a candidate at 0-based rank r a vote of
 * weight * decay^r, so votes fall off with rank (decay in (0, 1]; 1 is plain approval). A candidate a
 * ranker did not rank gets nothing from it. Ties are broken deterministically: higher score, then
 * the better (lower) sum of ranks over rankers (unranked counts as the list's length), then id.
 */
export function voteRankings(
  rankings: readonly WeightedRanking[],
  candidates: readonly string[],
  decay: number,
): VoteResult {
  if (!(decay > 0 && decay <= 1)) throw new RangeError(`decay must be in (0, 1], got ${decay}`);
  const scores: Record<string, number> = {};
  const rankSums: Record<string, number> = {};
  for (const candidate of candidates) {
    scores[candidate] = 0;
    rankSums[candidate] = 0;
  }
  for (const { weight, ranking } of rankings) {
    const seen = new Set<string>();
    ranking.forEach((candidate, rank) => {
      if (!(candidate in scores) || seen.has(candidate)) return;
      seen.add(candidate);
      scores[candidate] = (scores[candidate] ?? 0) + weight * decay ** rank;
      rankSums[candidate] = (rankSums[candidate] ?? 0) + rank;
    });
    for (const candidate of candidates)
      if (!seen.has(candidate)) rankSums[candidate] = (rankSums[candidate] ?? 0) + candidates.length;
  }
  const order = [...candidates].sort(
    (a, b) =>
      (scores[b] ?? 0) - (scores[a] ?? 0) || (rankSums[a] ?? 0) - (rankSums[b] ?? 0) || (a < b ? -1 : a > b ? 1 : 0),
  );
  return { order, scores };
}

/** The top `count` distinct candidates other than `exclude` (H0): the rescue set. */
export function topK(order: readonly string[], count: number, exclude: string): string[] {
  return [...new Set(order)].filter((candidate) => candidate !== exclude).slice(0, Math.max(0, count));
}
