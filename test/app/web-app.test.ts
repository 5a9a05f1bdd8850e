// The page at /app (web/, built into generated/app/ by `npm install`; served by src/http/web-app.ts).
// Over HTTP: the page with its policy of this origin alone, its hashed assets with their types and
// cache headers, and nothing else. In a real browser (tag 'browser', TEST_BROWSER=1, as
// graphiql.test.ts): Debian's chromium opens /app of an app listening on 127.0.0.1, every request to
// another host failed and recorded; a misspelled symbol opens NVLX, its header shows the snapshot's
// price and change, its chart is drawn, a trade `cli import` stores in another process reaches the
// page, trades stored while the server is down arrive once it is back (resumed `after` the last
// position), the free key's page shows locked panels, and with no key the login cookie signs it in
// (its steps that stand alone: test/app/web-app-steps.ts). A screenshot of the run goes to artifacts/web-app.png (ignored by git).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet } from './raw-get.js';
import { type App, createApp } from '../../src/app.js';
import { createEventBus, openDatabase } from '../../src/bootstrap.js';
import { ROOT } from '../../src/config.js';
import type { Db } from '../../src/db/client.js';
import { loadPersistedOperations } from '../../src/graphql/persisted.js';
import { webAppFiles } from '../../src/http/web-app.js';
import type { EventBus } from '../../src/runtime/events.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { ndjson, SEQ, SIP, trade } from '../graphql/subscription-helpers.js';
import { databaseUrlOf, testConfig, testDatabases, TEST_JWT_SECRET } from '../helpers.js';
import {
  chartPixels,
  headerShowsSnapshot,
  moversAsRest,
  restartableListener,
  restJson,
  resumesAfterServerDown,
  WAIT_MS,
} from './web-app-steps.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = path.join(ROOT, 'artifacts', 'web-app.png');
const BUILT = path.join(ROOT, 'generated/app');

/** The policy's directives by name. */
const directives = (csp: string) =>
  new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/) as [string, ...string[]])
      .map(([n, ...v]) => [n, v]),
  );

describe('the page at /app and its assets, served by the gateway', () => {
  const tdb = testDatabases()[0]!;
  let h: GraphQLHarness;
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    server = http.createServer(h.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await tdb.cleanup();
  });

  it('serves the page with a policy of this origin alone, no inline script, naming only its own assets', async () => {
    const page = await rawGet(port, '/app');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const csp = directives(String(page.headers['content-security-policy']));
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'", `ws://127.0.0.1:${port}`, `wss://127.0.0.1:${port}`]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    // no script-src or style-src of their own: default-src 'self' allows nothing inline
    expect([...csp.keys()].filter((d) => /^(script|style)-src/.test(d))).toEqual([]);
    const html = page.body.toString();
    expect(html).toBe(fs.readFileSync(path.join(BUILT, 'index.html'), 'utf8'));
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|\bon[a-z]+=|style=/i);
    expect((await rawGet(port, '/app/')).body.equals(page.body)).toBe(true);

    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((u) => u !== 'data:,');
    expect(urls.map((u) => path.extname(u)).sort()).toEqual(['.css', '.js']);
    for (const url of urls) {
      expect(url).toMatch(/^\/app\/assets\/app-[A-Z0-9]+\.(js|css)$/);
      const asset = await h.app.fetch(`http://test${url}`);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('content-type'), url).toBe(
        url.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      );
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const file = fs.readFileSync(path.join(BUILT, 'assets', path.basename(url)));
      expect(Buffer.from(await asset.arrayBuffer()).equals(file), url).toBe(true);
      // nothing in the bundle names another host to load from
      expect(file.toString()).not.toMatch(/(?:src|href)=["']?https?:|@import\s+url\(["']?https?:|unpkg|jsdelivr/);
    }
    // every document the page sends is one of the allow-list's, as printed: it runs under GRAPHQL_PERSISTED_ONLY
    const bundle = fs.readFileSync(
      path.join(BUILT, 'assets', path.basename(urls.find((u) => u.endsWith('.js'))!)),
      'utf8',
    );
    const documents = [...bundle.matchAll(/`((?:query|subscription) \w+[^`]*)`/g)].map((m) => m[1]!);
    expect(documents.map((d) => d.split(/[\s(]/)[1]).sort()).toEqual([
      'TradeAdded',
      'WebBars',
      'WebCompany',
      'WebMe',
      'WebMovers',
      'WebSearch',
    ]);
    const allowed = new Set(loadPersistedOperations().values());
    for (const d of documents) expect(allowed.has(d), d).toBe(true);
    const gzipped = await rawGet(port, urls[0]!, { 'accept-encoding': 'br, gzip' });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gzipped.body).equals(fs.readFileSync(path.join(BUILT, 'assets', path.basename(urls[0]!)))));
    const head = await h.app.fetch(`http://test${urls[1]}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(await (await h.app.fetch('http://test/metrics')).text()).toMatch(
      /route="\/app\/\*",operation="",status="200"} [1-9]/,
    );
  });

  it('serves nothing else: an unknown asset, a way out of generated/app or another method is refused', async () => {
    for (const p of [
      '/app/assets/nothing.js',
      '/app/assets/',
      '/app/index.html',
      '/app/assets/..%2f..%2f..%2fpackage.json',
      '/app/%2e%2e%2fpackage.json',
      '/app/assets/%2fetc%2fpasswd',
      '/app/assets/app.js%00.css',
    ]) {
      const res = await rawGet(port, p);
      expect(res.status, p).toBe(404);
      expect(res.body.toString(), p).toMatch(/"code":"NOT_FOUND"/);
    }
    // a path that URL parsing would rewrite (dot segments, backslashes) is no path at all (http/node.ts)
    for (const p of [
      '/app/../package.json',
      '/app/assets/../../package.json',
      '/app/%2e%2e/%2e%2e/package.json',
      '/app/assets\\..\\..\\package.json',
    ]) {
      const res = await rawGet(port, p);
      expect(res.status, p).toBe(400);
      expect(res.body.toString(), p).toMatch(/"code":"BAD_REQUEST"/);
    }
    expect((await h.app.fetch('http://test/app', { method: 'POST' })).status).toBe(404);
  });

  it('without a build, /app answers 503 saying what to run, and other paths pass on', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-web-'));
    try {
      const serve = webAppFiles(empty);
      const at = (p: string) => serve(new Request(`http://test${p}`), new URL(`http://test${p}`));
      for (const p of ['/app', '/app/assets/app-X.js'])
        await expect(at(p)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: /npm install/ });
      expect(await at('/application')).toBeUndefined();
      expect(await at('/stocks/v3/reference/tickers')).toBeUndefined();
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('the page at /app in a browser, offline', { tags: ['browser'] }, () => {
  const tdb = testDatabases()[0]!;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mdg-web-'));
  let db: Db;
  let events: EventBus;
  let app: App;
  let listener: Awaited<ReturnType<typeof restartableListener>>;
  let browser: Browser;
  let origin: string;
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    const database = await tdb.createSeeded();
    // a Secure cookie would need https: the page's login is tested over plain http on 127.0.0.1
    const config = testConfig(database, { sampleData: 'auto' }, { RATE_LIMIT_PRO: '1000000', COOKIE_SECURE: 'false' });
    db = await openDatabase(config);
    // the database's outbox, as server.ts without REDIS_URL: a trade the CLI stores reaches the page
    events = createEventBus(config, db);
    app = createApp({ config, db, events });
    listener = await restartableListener(app);
    origin = listener.origin;
    const { REDIS_URL: _unset, ...inherited } = process.env;
    cliEnv = {
      ...inherited,
      DATABASE_URL: databaseUrlOf(database),
      JWT_SECRET: TEST_JWT_SECRET,
      NODE_ENV: 'test',
      SAMPLE_DATA: 'none',
      DATA_DIR: dataDir,
    } as Record<string, string>;
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: WAIT_MS,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await listener?.stop();
    await events?.close();
    await db?.close();
    await tdb.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** `cli import trades` of NVLX trades, in a process of its own; resolves on its exit 0. */
  async function importTrades(trades: object[]): Promise<void> {
    const file = path.join(dataDir, 'trade.ndjson');
    fs.writeFileSync(file, ndjson(trades));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'import', 'trades', file], {
      cwd: ROOT,
      env: cliEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, out).toBe(0);
  }

  let serverDown = false;
  const refused: string[] = [];

  it('opens NVLX from a misspelled search, draws its chart, shows a trade imported by the CLI, locks what the free key may not read, and runs on the login cookie without a key', {
    timeout: 180_000,
  }, async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1100 });
    const elsewhere: string[] = [];
    const variables: Record<string, unknown>[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.method() === 'POST') variables.push(JSON.parse(request.postData() ?? '{}').variables ?? {});
      if (url.protocol === 'data:' || url.origin === origin) void request.continue();
      else {
        elsewhere.push(request.url());
        void request.abort('internetdisconnected');
      }
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // a policy violation is reported on the console; while the server is down, failed reconnects are
    page.on('console', (m) => void (m.type() === 'error' && (serverDown ? refused : errors).push(m.text())));

    await page.goto(`${origin}/app`, { waitUntil: 'load', timeout: WAIT_MS });
    expect(elsewhere).toEqual([]);
    // by keyboard: the search box is the second stop after the page's own link
    await page.waitForSelector('#search', { timeout: WAIT_MS });
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search');
    await page.keyboard.type('nvlxx');
    await page.waitForSelector('.matches button', { timeout: WAIT_MS });
    await page.keyboard.press('Enter');
    await page.waitForSelector('article.company[data-symbol="NVLX"]', { timeout: WAIT_MS });
    expect(new URL(page.url()).searchParams.get('symbol')).toBe('NVLX');
    expect(await page.$eval('.company-header h1', (e) => e.textContent)).toMatch(/NVLX\s*Novalux/);
    const before = await restJson<{ close: number }>(app, '/stocks/v1/open-close/NVLX/2026-11-19?adjusted=false');
    await headerShowsSnapshot(app, page, before.close);
    await moversAsRest(app, page);

    // the chart: a canvas with the price line drawn on it, not just an element
    await page.waitForSelector('.plot canvas', { timeout: WAIT_MS });
    await page.waitForFunction(
      () =>
        document
          .querySelector('.plot')
          ?.getAttribute('aria-label')
          ?.match(/\d+ bars/),
      {
        timeout: WAIT_MS,
      },
    );
    const pixels = await chartPixels(page);
    expect(pixels.painted).toBeGreaterThan(0);
    expect(pixels.line).toBeGreaterThan(200);
    // the switches: splits (the default) and dividends too ask for bars adjusted for both
    expect(variables.at(-1)).toMatchObject({ symbol: 'NVLX', timespan: 'DAY', adjustment: ['SPLIT'] });
    await page.click('.adjustment label:nth-of-type(2) input');
    await page.waitForFunction(() => document.querySelector('.chart')?.getAttribute('aria-busy') === 'false', {
      timeout: WAIT_MS,
    });
    expect(variables.at(-1)).toMatchObject({ symbol: 'NVLX', timespan: 'DAY', adjustment: ['ALL'] });
    await page.waitForSelector('.plot canvas', { timeout: WAIT_MS });

    // a trade stored by another process arrives over the WebSocket: in the list and in the header
    await page.waitForSelector('.live [data-state="live"]', { timeout: WAIT_MS });
    await importTrades([{ ...trade('NVLX', SEQ), price: 412.5 }]);
    await page.waitForFunction(
      () => document.querySelector('[data-testid="live-trades"] li')?.textContent?.includes('412.5'),
      { timeout: 10_000 },
    );
    expect(await page.$eval('[data-testid="price"]', (e) => e.textContent)).toMatch(/^412\.50?$/);
    // its change is against the close of the session before the trade's (REST's open-close, as quoted)
    const tradeDay = new Date(Number(SIP / 1_000_000n)).toISOString().slice(0, 10);
    expect(tradeDay).toBe('2026-11-20');
    const expected = ((412.5 - before.close) / before.close) * 100;
    expect(await page.$eval('[data-testid="change"]', (e) => e.textContent)).toBe(`+${expected.toFixed(2)}%`);
    await resumesAfterServerDown(page, listener, importTrades, (isDown) => (serverDown = isDown));
    expect(
      refused.every((m) => /WebSocket/.test(m)),
      refused.join('\n'),
    ).toBe(true);

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT as `${string}.png`, fullPage: true });
    console.log(`/app screenshot: ${SCREENSHOT}`);

    // the free key: the page stays whole, what its tier lacks shows locked
    await page.click('#api-key', { count: 3 });
    await page.keyboard.type('demo-free');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.live.is-locked', { timeout: WAIT_MS });
    expect(await page.$eval('.live', (e) => e.textContent)).toMatch(/Locked.*pro tier/);
    await page.waitForSelector('.news li', { timeout: WAIT_MS });
    await page.waitForSelector('.plot canvas', { timeout: WAIT_MS });
    expect((await chartPixels(page)).line).toBeGreaterThan(200);
    // minute bars are the pro tier's: the 1D range locks the chart alone
    await page.click('.ranges button:first-of-type');
    await page.waitForSelector('.chart.is-locked', { timeout: WAIT_MS });
    // and another range opens it again: the switches stay on a locked chart
    await page.click('.ranges button:nth-of-type(3)');
    await page.waitForSelector('.chart:not(.is-locked) .plot canvas', { timeout: WAIT_MS });
    expect(await page.$$('.news li')).not.toHaveLength(0);
    expect(await page.evaluate(() => localStorage.getItem('mdg.apiKey'))).toBe('demo-free');

    // no key: the login cookie counts, for queries and the WebSocket alike
    const login = await page.evaluate(async () => {
      const res = await fetch('/kms/api/v1/auth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'pro@example.com', password: 'demo-password' }),
      });
      return res.status;
    });
    expect(login).toBe(200);
    await page.click('#api-key', { count: 3 });
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.who')?.textContent?.includes('by cookie'), {
      timeout: WAIT_MS,
    });
    expect(await page.$eval('.who', (e) => e.textContent)).toBe('pro · PRO · by cookie');
    await page.waitForSelector('.live [data-state="live"]', { timeout: WAIT_MS });
    // the panels the free key locked ask again under the cookie, each in its own time
    await page.waitForFunction(() => !document.querySelector('.is-locked'), { timeout: WAIT_MS });
    expect(await page.evaluate(() => localStorage.getItem('mdg.apiKey'))).toBe('');

    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
