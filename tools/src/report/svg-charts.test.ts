import { describe, expect, it } from 'vitest';
import { meanCurve } from './stats.js';
import { divergingBarChart, lineChart, stackedBarChart } from './svg-charts.js';

const numbers = (svg: string, attribute: string) =>
  [...svg.matchAll(new RegExp(`\\s${attribute}="(-?[0-9.]+)"`, 'g'))].map((match) => Number(match[1]));

describe('meanCurve', () => {
  it('averages seeds per step, leaving out steps a seed has no value for', () => {
    const curve = meanCurve([
      [
        { x: 1, y: 0.2 },
        { x: 2, y: null },
        { x: 3, y: 0.6 },
      ],
      [
        { x: 1, y: 0.4 },
        { x: 2, y: 0.5 },
      ],
    ]);
    expect(curve.map((point) => [point.x, Number(point.y.toFixed(3)), point.n])).toEqual([
      [1, 0.3, 2],
      [2, 0.5, 1],
      [3, 0.6, 1],
    ]);
    expect(curve[0]?.spread).toBeCloseTo(Math.SQRT2 / 10, 6);
  });
});

describe('svg charts', () => {
  it('keeps every point of a line chart inside the plot, with a band only over several seeds', () => {
    const frame = { id: 'avg', title: 'Avg@3' };
    const single = lineChart(frame, [
      { label: 'a', color: '#000', points: meanCurve([[0, 1, 2, 3].map((x) => ({ x, y: 0.2 + x * 0.1 }))]) },
    ]);
    expect(single).not.toContain('class="band"');
    const several = lineChart(frame, [
      {
        label: 'b <b>',
        color: '#000',
        points: meanCurve([[0, 1, 2].map((x) => ({ x, y: 0.9 })), [0, 1, 2].map((x) => ({ x, y: 0.99 }))]),
      },
    ]);
    expect(several).toContain('class="band"');
    expect(several).toContain('b &lt;b&gt;');
    for (const svg of [single, several]) {
      const xs = numbers(svg, 'cx');
      const ys = numbers(svg, 'cy');
      expect(xs.length).toBeGreaterThan(2);
      for (const x of xs) {
        expect(x).toBeGreaterThan(0);
        expect(x).toBeLessThan(560);
      }
      for (const y of ys) {
        expect(y).toBeGreaterThan(0);
        expect(y).toBeLessThan(280);
      }
    }
    // Near the top of the scale, the axis does not run past 100%.
    expect(several).toContain('>100%</text>');
    expect(several).not.toContain('>110%</text>');
  });

  it('stacks shares to the full bar height and scales diverging bars by the largest count', () => {
    const stacked = stackedBarChart(
      { id: 's', title: 'shares' },
      ['step 1'],
      [
        { label: 'H0', color: '#00f', values: [0.25] },
        { label: 'v', color: '#f00', values: [0.75] },
      ],
    );
    const heights = numbers(stacked, 'height');
    expect(heights.reduce((sum, value) => sum + value, 0)).toBeCloseTo(224, 0);
    expect(heights[1]).toBeCloseTo(heights[0] ? heights[0] * 3 : Number.NaN, 0);

    const diverging = divergingBarChart({ id: 'd', title: 'helps' }, [
      { label: 'v1', helps: 4, hurts: 0 },
      { label: 'v2', helps: 2, hurts: 1 },
    ]);
    const widths = numbers(diverging, 'width');
    // hurts, helps per row: the largest count gets the longest bar, the others in proportion.
    expect(widths[1]).toBeCloseTo((widths[3] ?? 0) * 2, 0);
    expect(widths[1]).toBeCloseTo((widths[2] ?? 0) * 4, 0);
    // On a scale set from outside (a chart drawn beside another), a count of 1 is a quarter of 4's bar.
    const scaled = numbers(
      divergingBarChart({ id: 'e', title: 'helps' }, [{ label: 'v', helps: 1, hurts: 0 }], 4),
      'width',
    );
    expect(scaled[1]).toBeCloseTo((widths[1] ?? 0) / 4, 0);
  });

  it('says so instead of drawing an empty chart', () => {
    expect(lineChart({ id: 'e', title: 'empty' }, [{ label: 'a', color: '#000', points: [] }])).toContain('No data');
    expect(lineChart({ id: 'e', title: 'empty' }, [])).not.toContain('<svg');
  });
});
