import { describe, expect, it } from 'vitest';
import { topK, voteRankings } from './voting.js';

describe('voteRankings', () => {
  it('sums weight * decay^rank, by hand', () => {
    // decay 0.5: ranker A (w=1): a=1, b=0.5, c=0.25; ranker B (w=2): c=2, a=1, b=0.5
    const result = voteRankings(
      [
        { rankerId: 'A', weight: 1, ranking: ['a', 'b', 'c'] },
        { rankerId: 'B', weight: 2, ranking: ['c', 'a', 'b'] },
      ],
      ['a', 'b', 'c'],
      0.5,
    );
    expect(result.scores).toEqual({ a: 2, b: 1, c: 2.25 });
    expect(result.order).toEqual(['c', 'a', 'b']);
  });

  it('breaks a score tie by the better rank sum, then by id', () => {
    // decay 1: every ranked candidate gets the ranker's weight; all tie on score.
    const tiedScores = voteRankings(
      [
        { rankerId: 'A', weight: 1, ranking: ['b', 'a'] },
        { rankerId: 'B', weight: 1, ranking: ['b', 'a'] },
      ],
      ['a', 'b'],
      1,
    );
    expect(tiedScores.scores).toEqual({ a: 2, b: 2 });
    expect(tiedScores.order).toEqual(['b', 'a']);
    const fullTie = voteRankings(
      [
        { rankerId: 'A', weight: 1, ranking: ['y', 'x'] },
        { rankerId: 'B', weight: 1, ranking: ['x', 'y'] },
      ],
      ['y', 'x'],
      0.5,
    );
    expect(fullTie.scores).toEqual({ x: 1.5, y: 1.5 });
    expect(fullTie.order).toEqual(['x', 'y']);
  });

  it('ignores unknown and repeated entries; unranked candidates score nothing', () => {
    const result = voteRankings([{ rankerId: 'A', weight: 1, ranking: ['z', 'a', 'a', 'b'] }], ['a', 'b', 'c'], 0.5);
    // z is not a candidate but still takes rank 0; a at rank 1, b at rank 3.
    expect(result.scores).toEqual({ a: 0.5, b: 0.125, c: 0 });
    expect(result.order).toEqual(['a', 'b', 'c']);
  });

  it('refuses a decay outside (0, 1]', () => {
    expect(() => voteRankings([], ['a'], 0)).toThrow(RangeError);
    expect(() => voteRankings([], ['a'], 1.5)).toThrow(RangeError);
  });
});

describe('topK', () => {
  it('drops H0, keeps order and distinctness, and copes with K larger than the pool', () => {
    expect(topK(['v1', 'h0', 'v2', 'v1', 'v3'], 2, 'h0')).toEqual(['v1', 'v2']);
    expect(topK(['h0', 'v1', 'v2'], 8, 'h0')).toEqual(['v1', 'v2']);
    expect(topK(['h0'], 3, 'h0')).toEqual([]);
    expect(topK(['v1'], 0, 'h0')).toEqual([]);
  });
});
