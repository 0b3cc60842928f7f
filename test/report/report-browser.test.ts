import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
    // Pass 1 adds two notes (right side), pass 2 removes them (left side).
    expect(await page.locator('#pass-1 td.ins.note').count()).toBe(2);
    expect(await page.locator('#pass-2 td.del.note').count()).toBe(2);
    expect(await page.locator('svg[role="img"]').count()).toBe(2);
    expect(await page.locator('table.dispatches tbody tr').count()).toBe(run.ids.length);
    for (const id of run.ids) expect(await page.locator('table.dispatches').textContent()).toContain(id);
    // The document's <script> is text on the page, not an element.
    expect(await page.locator('body script').count()).toBe(0);
    expect(await page.locator('#pass-1').textContent()).toContain('<script>alert("x")</script>');

    const href = await page.locator('table.dispatches a').first().getAttribute('href');
    expect(existsSync(join(run.dir, href!))).toBe(true);

    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'report.png'), fullPage: true });
    await context.close();
    expect(problems).toEqual([]);
    expect(requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'))).toEqual([]);
  });
});
