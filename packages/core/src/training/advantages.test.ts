import { describe, expect, it } from 'vitest';
import { groupAdvantages } from './advantages.js';

describe('groupAdvantages', () => {
  it('centres on the mean and divides by the population deviation plus epsilon', () => {
    // rewards 1,0,0,0: mean 0.25, population std sqrt(0.1875) = 0.4330127
    const { advantages, hasSignal } = groupAdvantages([1, 0, 0, 0], {
      std: 'population',
      epsilon: 0,
      zeroVariance: 'keep',
    });
    expect(hasSignal).toBe(true);
    expect(advantages[0]).toBeCloseTo(0.75 / 0.4330127, 6);
    expect(advantages[1]).toBeCloseTo(-0.25 / 0.4330127, 6);
    expect(advantages.reduce((sum, value) => sum + value, 0)).toBeCloseTo(0, 12);
  });

  it('uses the sample deviation and epsilon when asked', () => {
    // sample std of 1,0 = sqrt(0.5)
    const { advantages } = groupAdvantages([1, 0], { std: 'sample', epsilon: 0.1, zeroVariance: 'keep' });
    expect(advantages[0]).toBeCloseTo(0.5 / (Math.SQRT1_2 + 0.1), 12);
  });

  it('gives all-equal groups zero advantage and no signal', () => {
    expect(groupAdvantages([0, 0, 0], { std: 'population', epsilon: 1e-6, zeroVariance: 'keep' })).toEqual({
      advantages: [0, 0, 0],
      hasSignal: false,
    });
    expect(groupAdvantages([1, 1], { std: 'population', epsilon: 1e-6, zeroVariance: 'drop' }).hasSignal).toBe(false);
    expect(groupAdvantages([], { std: 'population', epsilon: 1e-6, zeroVariance: 'keep' }).advantages).toEqual([]);
  });
});
