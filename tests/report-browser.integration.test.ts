import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeReport } from '@harness-s/cli';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReportRunFolder, type ReportRunFixture } from './src/fixtures/report-run.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// Debian's chromium, never a downloaded browser: `.ci/browser.sh` installs it in CI.
const chromiumPath = process.env['HARNESS_S_CHROMIUM'] ?? '/usr/bin/chromium';
const inCi = Boolean(process.env['CI']) && process.env['CI'] !== 'false';
const available = existsSync(chromiumPath);
if (!available) {
  if (inCi)
    throw new Error(`${chromiumPath} is missing; CI must run the report browser test (.ci/browser.sh installs it)`);
  console.warn(`skipping the report browser test: ${chromiumPath} is missing (apt-get install chromium)`);
}

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Line {
  training?: { groupId: string; role: string };
  evaluation: { success: boolean } | null;
}

/** Groups of the rescuing runs where a rescue attempt succeeded, read from the trajectories directly. */
async function rescuedGroups(fixture: ReportRunFixture): Promise<Map<string, { base: number; rescue: number }>> {
  const groups = new Map<string, { base: number; rescue: number }>();
  for (const runDir of fixture.runDirs.filter((dir) => /harness-s|h0-resample/.test(dir))) {
    const text = await readFile(join(fixture.dir, runDir, 'trajectories.jsonl'), 'utf8');
    const lines = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Line);
    const ids = new Set(
      lines.flatMap((line) =>
        line.training?.role === 'rescue' && line.evaluation?.success ? [line.training.groupId] : [],
      ),
    );
    for (const id of ids) {
      const of = lines.filter((line) => line.training?.groupId === id);
      groups.set(id, {
        base: of.filter((line) => line.training?.role === 'base').length,
        rescue: of.filter((line) => line.training?.role === 'rescue').length,
      });
    }
  }
  return groups;
}

/** The charts the report must draw for the fixture, from what the folder holds. */
function expectedCharts(fixture: ReportRunFixture): string[] {
  const env = fixture.env;
  const profiles = join(fixture.dir, 'profiles', env);
  const labels = existsSync(profiles) ? readdirSync(profiles) : [];
  return [
    `${env}-pass`,
    `${env}-avg`,
    `${env}-effective`,
    ...(fixture.methods.some((method) => method === 'harness-s' || method === 'h0-resample') ? [`${env}-rescue`] : []),
    ...(fixture.methods.includes('harness-s') ? [`${env}-router`] : []),
    ...(labels.includes('initial') ? [`${env}-profiles-initial`] : []),
    ...(labels.some((label) => label.startsWith('trained')) ? [`${env}-profiles-trained`] : []),
  ];
}

describe.skipIf(!available)('the HTML report in headless Chromium', () => {
  let fixture: ReportRunFixture;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const requests: string[] = [];

  beforeAll(async () => {
    fixture = await buildReportRunFolder(await mkdtemp(join(tmpdir(), 'report-browser-')));
    const report = await writeReport(fixture.dir);
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(pathToFileURL(report).href, { waitUntil: 'load' });
    // Six short training runs on a shared machine; a few seconds each on an idle one.
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('draws every chart with visible marks', async () => {
    const drawn = await page.$$eval('svg.chart', (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        const marks = [...svg.querySelectorAll('path.line, circle.dot, rect.bar')].filter((mark) => {
          const markBox = (mark as unknown as { getBBox(): { width: number; height: number } }).getBBox();
          return mark.tagName === 'path'
            ? markBox.width > 0 || markBox.height > 0
            : markBox.width > 0 && markBox.height > 0;
        });
        return { id: svg.getAttribute('data-chart'), width: box.width, height: box.height, marks: marks.length };
      }),
    );
    expect(drawn.map((chart) => chart.id)).toEqual(expectedCharts(fixture));
    for (const chart of drawn) {
      expect(chart.width, chart.id ?? '').toBeGreaterThan(200);
      expect(chart.height, chart.id ?? '').toBeGreaterThan(100);
      expect(chart.marks, chart.id ?? '').toBeGreaterThan(0);
    }
    // One line per method in each curve of the method comparison.
    expect(await page.locator(`svg[data-chart="${fixture.env}-avg"] path.line`).count()).toBe(fixture.methods.length);
    expect(await page.locator(`#chart-${fixture.env}-router .legend`).textContent()).toContain('H0');
  });

  it('opens a rescued group to its attempts side by side', async () => {
    const rescued = await rescuedGroups(fixture);
    expect(rescued.size).toBeGreaterThan(0);
    const groups = page.locator('details.group');
    const shown = await groups.evaluateAll((elements) =>
      elements.map((element) => element.getAttribute('data-group') ?? ''),
    );
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThanOrEqual(3);
    for (const id of shown) expect(rescued.has(id)).toBe(true);

    const group = groups.first();
    expect(await group.locator('.lane').first().isVisible()).toBe(false);
    await group.locator(':scope > summary').click();
    expect(await group.evaluate((element) => (element as unknown as { open: boolean }).open)).toBe(true);
    const expected = rescued.get(shown[0] ?? '');
    expect(await group.locator('.lane.base details.attempt').count()).toBe(expected?.base);
    expect(await group.locator('.lane.rescue details.attempt').count()).toBe(expected?.rescue);

    // The open attempt under H0 and the open rescue attempt stand in columns side by side.
    const base = await group.locator('.lane.base details.attempt[open]').first().boundingBox();
    const rescue = await group.locator('.lane.rescue details.attempt[open]').first().boundingBox();
    expect(base && rescue).toBeTruthy();
    if (!base || !rescue) return;
    expect(base.width).toBeGreaterThan(300);
    expect(rescue.x).toBeGreaterThanOrEqual(base.x + base.width);
    expect(Math.abs(rescue.y - base.y)).toBeLessThan(4);
    expect(await group.locator('.lane.rescue details.attempt[open] .msg.assistant').count()).toBeGreaterThan(0);
    expect(await group.locator('.lane.base details.attempt[open] .msg.tool').count()).toBeGreaterThan(0);

    await mkdir(join(root, 'test-artifacts'), { recursive: true });
    await page.screenshot({ path: join(root, 'test-artifacts', 'report.png'), fullPage: true });

    // A closed attempt opens on a click; the toolbar opens them all.
    const attempts = group.locator('details.attempt');
    const closedIndex = await attempts.evaluateAll((elements) =>
      elements.findIndex((element) => !(element as unknown as { open: boolean }).open),
    );
    if (closedIndex >= 0) {
      const before = (await attempts.nth(closedIndex).boundingBox())?.width ?? 0;
      await attempts.nth(closedIndex).locator(':scope > summary').click();
      expect((await attempts.nth(closedIndex).boundingBox())?.width).toBeGreaterThan(before);
    }
    await group.locator('button[data-attempts="open"]').click();
    expect(await group.locator('details.attempt:not([open])').count()).toBe(0);
    await group.locator('button[data-attempts="close"]').click();
    expect(await group.locator('details.attempt[open]').count()).toBe(0);
  });

  it('logs no error and loads nothing but the file', () => {
    expect(errors).toEqual([]);
    expect(requests.filter((url) => !url.startsWith('file://'))).toEqual([]);
  });
});
