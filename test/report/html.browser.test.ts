import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReport } from '../../src/commands/report.js';
import { renderReport } from '../../src/report/html.js';
import { makeFakeRun, memIo, type FakeRun } from '../support/fake-run.js';

const CHROMIUM = '/usr/bin/chromium';
/** Screenshots land here for a human to look at (git-ignored). */
const OUTPUT_DIR = resolve('test-output');

let tmp: string;
let run: FakeRun;
let html: string;
let reportPath: string;
let browser: Browser | undefined;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'bounce-report-'));
  run = makeFakeRun(join(tmp, 'runs'));
  const io = memIo(tmp);
  expect(await runReport({ run: 'latest', runsDir: 'runs' }, io)).toBe(0);
  reportPath = io.out().trim();
  html = readFileSync(reportPath, 'utf8');
  if (existsSync(CHROMIUM)) {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }
});

afterAll(async () => {
  await browser?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('bounce report', () => {
  it('writes report.html into the run folder and prints its path', () => {
    expect(reportPath).toBe(join(run.dir, 'report.html'));
  });

  it('is one self-contained file that escapes document text', () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link|@import|url\(|https?:\/\/(?!www\.w3\.org\/2000\/svg)/i);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;');
    expect(html).toContain('mock evidence, not a live result');
  });

  it('words mixed evidence as it is: a banner when a mock took part, none for a live agent beside an external one', () => {
    const live = makeFakeRun(join(tmp, 'mixed'), { evidence: 'live' });
    const withMock = structuredClone(live.manifest);
    withMock.evidence = 'mixed';
    withMock.agents.composer.evidence = 'mock';
    const mixedPage = renderReport(live.dir, withMock);
    expect(mixedPage).toContain('a scripted agent took part in this run');
    expect(mixedPage).toContain('mixed: a mock agent, not a live result');
    const external = structuredClone(live.manifest);
    external.evidence = 'mixed';
    external.agents.composer.evidence = 'external';
    expect(renderReport(live.dir, external)).not.toContain('evidence-banner');
  });

  it('shows a failed pass without a document and no mock banner on a live run', () => {
    const live = makeFakeRun(join(tmp, 'live'), { evidence: 'live' });
    const m = structuredClone(live.manifest);
    Object.assign(m.pass_records[1]!, { status: 'failed', document: null, document_sha256: null, notes_after: null, errors: ['timeout: <slow> agent'] });
    Object.assign(m, { status: 'failed', exit_code: 3, error: { type: 'timeout', message: 'openai timed out' } });
    const page = renderReport(live.dir, m);
    expect(page).not.toContain('evidence-banner');
    expect(page).toContain('this pass produced no document');
    expect(page).toContain('error: timeout: &lt;slow&gt; agent');
    expect(page).toContain('class="status-failed"');
  });

  it('draws the charts with every label inside them and one unbroken line across an interrupted attempt', async () => {
    const m = structuredClone(run.manifest);
    const cut = {
      ...structuredClone(m.pass_records[1]!),
      status: 'interrupted' as const,
      document: null,
      document_sha256: null,
      notes_after: null,
      words_after: null,
      dispatches: [],
    };
    m.pass_records.splice(1, 0, cut);
    const path = join(run.dir, 'resumed-report.html');
    writeFileSync(path, renderReport(run.dir, m));
    const context = await browser!.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.goto(pathToFileURL(path).href, { waitUntil: 'load' });
    const charts = page.locator('.charts svg');
    expect(await charts.count()).toBe(2);
    for (let i = 0; i < 2; i++) {
      const chart = charts.nth(i);
      expect(await chart.locator('polyline').count()).toBe(1);
      expect(await chart.locator('polyline').getAttribute('points')).toMatch(/^(\S+ ){2}\S+$/);
      expect(await chart.locator('circle.nodoc').count()).toBe(1);
      // Every x label lies wholly inside its chart, and no two overlap.
      const boxes = await chart.evaluate((svg) => {
        const frame = svg.getBoundingClientRect();
        return {
          frame: { left: frame.left, right: frame.right, bottom: frame.bottom },
          labels: [...svg.querySelectorAll('text.xlabel')]
            .map((t) => t.getBoundingClientRect())
            .map((r) => ({ left: r.left, right: r.right, bottom: r.bottom })),
        };
      });
      expect(boxes.labels.map((l) => l.left)).toHaveLength(4);
      for (const l of boxes.labels) {
        expect(l.left).toBeGreaterThanOrEqual(boxes.frame.left);
        expect(l.right).toBeLessThanOrEqual(boxes.frame.right);
        expect(l.bottom).toBeLessThanOrEqual(boxes.frame.bottom);
      }
      for (let k = 1; k < boxes.labels.length; k++) expect(boxes.labels[k]!.left).toBeGreaterThan(boxes.labels[k - 1]!.right);
    }
    expect(await charts.first().locator('text.xlabel').nth(2).textContent()).toBe('pass 2(interrupted)');
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.locator('.charts').screenshot({ path: join(OUTPUT_DIR, 'report-charts.png') });
    await context.close();
  });

  it('renders in headless Chromium without errors or network', async () => {
    const context = await browser!.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && problems.push(`console: ${msg.text()}`));
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('request', (req) => requests.push(req.url()));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await page.goto(pathToFileURL(reportPath).href, { waitUntil: 'load' });

    expect(await page.title()).toBe(`bounce report: ${run.runId}`);
    expect(await page.locator('#evidence-banner').textContent()).toMatch(/mock evidence, not a live result/i);
    expect(await page.locator('section.pass').count()).toBe(run.manifest.pass_records.length);
    for (const p of run.manifest.pass_records) expect(await page.locator(`#pass-${p.pass} table.diff`).count()).toBe(1);
    // Pass 1 adds two notes (right side), pass 2 removes them (left side): every line of the
    // [CLARIFY] note, which wraps onto a second line, is highlighted, not only its marker's.
    expect(await page.locator('#pass-1 td.ins.note').count()).toBe(3);
    expect(await page.locator('#pass-2 td.del.note').count()).toBe(3);
    expect(await page.locator('#pass-2 td.del.note').last().textContent()).toBe('equally. (B) no, exempt observability.');

    // The notes table: each note's fate, who raised and who resolved it, linking to its lines in the diffs.
    const rows = page.locator('table.notes tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.locator('td:first-child').allTextContents()).toEqual(['acted', 'dismissed']);
    expect(await rows.nth(1).textContent()).toContain('[CLARIFY] Does "all endpoints" include /metrics?');
    for (const href of await page.locator('table.notes a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))) {
      expect(href).toMatch(/^#pass-\d+-[ab]\d+$/);
      expect(await page.locator(href!).count(), href!).toBe(1);
    }
    expect(await page.locator('table.notes a').nth(1).getAttribute('href')).toBe('#pass-2-a4');
    expect(await page.locator('#pass-2-a4 + td').textContent()).toMatch(/^\[CONTESTED\] Five attempts/);

    // The net change and the final document.
    expect(await page.locator('#net + table.diff td.del').first().textContent()).toContain('up to 5 attempts');
    expect(await page.locator('#net + table.diff td.note').count()).toBe(0);
    expect(await page.locator('pre.document').textContent()).toBe(readFileSync(join(run.dir, 'final.md'), 'utf8'));

    // Every artifact of every dispatch is linked, and each link resolves to a file of the run.
    const artifacts = await page.locator('table.dispatches a.artifact').evaluateAll((as) => as.map((a) => `${a.textContent} ${a.getAttribute('href')}`));
    expect(artifacts.filter((a) => a.startsWith('prompt '))).toHaveLength(run.ids.length);
    expect(artifacts.filter((a) => a.startsWith('record '))).toHaveLength(run.ids.length);
    expect(artifacts).toContain('reply pass-2-composer-mock.reply.txt');
    expect(artifacts).toContain('stderr pass-2-composer-mock.stderr.log');
    expect(artifacts).toContain('document pass-2-composer-mock.md');
    for (const a of artifacts) expect(existsSync(join(run.dir, a.split(' ')[1]!)), a).toBe(true);
    expect(await page.locator('svg[role="img"]').count()).toBe(2);
    expect(await page.locator('table.dispatches tbody tr').count()).toBe(run.ids.length);
    for (const id of run.ids) expect(await page.locator('table.dispatches').textContent()).toContain(id);
    // The document's <script> is text on the page, not an element.
    expect(await page.locator('body script').count()).toBe(0);
    expect(await page.locator('#pass-1').textContent()).toContain('<script>alert("x")</script>');

    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'report.png'), fullPage: true });
    await context.close();
    expect(problems).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
  });
});
