// GraphiQL without internet (src/graphql/graphiql.ts). Over HTTP: the page names only assets the
// gateway serves from @graphql-yoga/graphiql, served with their types and cache headers, and
// nothing else. In a real browser: Debian's chromium (headless, driven by puppeteer-core) opens
// /graphql of an app listening on 127.0.0.1, with every request to another host failed and
// recorded; the page must load from the gateway alone, open with the company page and the demo
// key, build its docs from introspection, and run the query. The browser part is opt-in (tag
// 'browser', TEST_BROWSER=1, set by .ci/run, which installs chromium); it saves a screenshot of
// the run to artifacts/graphiql.png (ignored by git) and prints its path.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet } from './raw-get.js';
import { ROOT } from '../../src/config.js';
import { GRAPHIQL_ASSETS } from '../../src/graphql/graphiql.js';
import { COMPANY_PAGE_QUERY } from '../../src/graphql/yoga.js';
import { graphqlHarness, type GraphQLHarness } from '../graphql/helpers.js';
import { testDatabases } from '../helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = path.join(ROOT, 'artifacts', 'graphiql.png');
/** The longest the test waits for the browser at each step. */
const WAIT_MS = 15_000;

/** The text of one of GraphiQL's Monaco editors as it shows it (Monaco draws spaces as U+00A0). */
const editorText = (page: Page, selector: string) =>
  page.$eval(selector, (e) => (e as HTMLElement).textContent.replace(/\u00a0/g, ' '));

describe("GraphiQL's page and its assets, served by the gateway", () => {
  const tdb = testDatabases()[0]!;
  let h: GraphQLHarness;
  let server: http.Server;
  let port: number;
  const dist = path.join(ROOT, 'node_modules/@graphql-yoga/graphiql/dist');

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

  it('renders a page whose every script, style and worker is one of those assets, with the company page as its query', async () => {
    const res = await h.app.fetch('http://test/graphql', { headers: { accept: 'text/html' } });
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"|"(\/graphiql\/[^"]+)"/g)].map((m) => m[1] ?? m[2]!);
    expect(urls.length).toBeGreaterThanOrEqual(5);
    for (const url of urls.filter((u) => u !== 'data:,')) {
      expect(url.startsWith(GRAPHIQL_ASSETS), url).toBe(true);
      const asset = await h.app.fetch(`http://test${url}`);
      expect(asset.status, url).toBe(200);
    }
    expect(html).not.toMatch(/unpkg|https?:\/\/(?!static\.example\.com)/);
    // the editor's query, not Yoga's welcome comment; the demo key in the headers
    const opts = JSON.parse(html.match(/const opts=(\{.*?\});if/)![1]!) as Record<string, string>;
    expect(opts.query).toBe(COMPANY_PAGE_QUERY);
    expect(JSON.parse(opts.headers!)).toEqual({ 'X-API-Key': 'demo-pro' });
    expect(GRAPHIQL_ASSETS).toBe(
      `/graphiql/assets/${JSON.parse(fs.readFileSync(path.join(dist, '../package.json'), 'utf8')).version}/`,
    );
  });

  it('serves the files of @graphql-yoga/graphiql with their types, for a year, gzipped when asked', async () => {
    const script = await h.app.fetch(`http://test${GRAPHIQL_ASSETS}yoga-graphiql.umd.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(
      Buffer.from(await script.arrayBuffer()).equals(fs.readFileSync(path.join(dist, 'yoga-graphiql.umd.js'))),
    ).toBe(true);
    const css = await rawGet(port, `${GRAPHIQL_ASSETS}graphiql.css`, { 'accept-encoding': 'gzip, br' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(css.body).equals(fs.readFileSync(path.join(dist, 'graphiql.css')))).toBe(true);
    const worker = await h.app.fetch(`http://test${GRAPHIQL_ASSETS}monacoeditorwork/graphql.worker..bundle.js`, {
      method: 'HEAD',
    });
    expect(worker.status).toBe(200);
    expect(worker.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    // one route label for them all in the metrics, not `unmatched` as a probe of unknown paths
    expect(await (await h.app.fetch('http://test/metrics')).text()).toMatch(
      /route="\/graphiql\/assets\/\*",operation="",status="200"} [1-9]/,
    );
  });

  it('serves nothing else: no other file, no way out of the package, and nothing without introspection', async () => {
    for (const p of ['..%2f..%2f..%2fpackage.json', '/etc/passwd', '%2fetc%2fpasswd', 'nothing.js', '']) {
      const res = await rawGet(port, `${GRAPHIQL_ASSETS}${p}`);
      expect(res.status, p).toBe(404);
      expect(res.body.toString(), p).toMatch(/"code":"NOT_FOUND"/);
    }
    // a path that URL parsing would rewrite (dot segments, backslashes) is no path at all (http/node.ts)
    for (const p of [
      '../../../package.json',
      '%2e%2e/%2e%2e/%2e%2e/package.json',
      '..\\..\\..\\package.json',
      'monacoeditorwork/../../package.json',
    ]) {
      const res = await rawGet(port, `${GRAPHIQL_ASSETS}${p}`);
      expect(res.status, p).toBe(400);
      expect(res.body.toString(), p).toMatch(/"code":"BAD_REQUEST"/);
    }
    const post = await h.app.fetch(`http://test${GRAPHIQL_ASSETS}graphiql.css`, { method: 'POST' });
    expect(post.status).toBe(404);
    const closed = h.appWith({ GRAPHQL_INTROSPECTION: 'false' });
    expect((await closed.fetch(`http://test${GRAPHIQL_ASSETS}graphiql.css`)).status).toBe(404);
  });
});

describe('GraphiQL in a browser, offline', { tags: ['browser'] }, () => {
  const tdb = testDatabases()[0]!;
  let h: GraphQLHarness;
  let server: http.Server;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    h = await graphqlHarness(tdb);
    server = http.createServer(h.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: WAIT_MS,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
    await tdb.cleanup();
  });

  // each wait is bounded by WAIT_MS, the whole by this (a run takes 2-5 s)
  it('loads from the gateway alone, opens with the company page and the demo key, and runs it', {
    timeout: 120_000,
  }, async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    const elsewhere: string[] = [];
    const seen: string[] = [];
    const posts: { body: string; key: string | undefined }[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.protocol === 'data:' || url.protocol === 'blob:' || url.origin === origin) {
        if (request.method() === 'POST' && url.pathname === '/graphql')
          posts.push({ body: request.postData() ?? '', key: request.headers()['x-api-key'] });
        seen.push(url.pathname);
        void request.continue();
      } else {
        elsewhere.push(request.url());
        void request.abort('internetdisconnected');
      }
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));

    await page.goto(`${origin}/graphql`, { waitUntil: 'load', timeout: WAIT_MS });
    // by 'load' the page's scripts and styles were asked for: none of them elsewhere
    expect(elsewhere).toEqual([]);
    await page.waitForSelector('.graphiql-query-editor .view-lines', { timeout: WAIT_MS });
    await page.waitForFunction(
      () => document.querySelector('.graphiql-query-editor .view-lines')?.textContent?.includes('CompanyPage'),
      { timeout: WAIT_MS },
    );
    const query = await editorText(page, '.graphiql-query-editor .view-lines');
    expect(query).toMatch(/query CompanyPage\(\$symbol: String = "NVLX"\)/);
    expect(query).not.toMatch(/Welcome to/);
    // the docs, from introspection: the root types and the fields of Query
    await page.click('[aria-label="Show Documentation Explorer"]');
    await page.waitForFunction(
      () => document.querySelector('.graphiql-doc-explorer')?.textContent?.includes('Root Types'),
      { timeout: WAIT_MS },
    );
    await page.click('.graphiql-doc-explorer-root-type + a, .graphiql-doc-explorer a.graphiql-doc-explorer-type-name');
    await page.waitForFunction(
      () => /security\(/.test(document.querySelector('.graphiql-doc-explorer')?.textContent ?? ''),
      { timeout: WAIT_MS },
    );
    expect(posts.some((p) => p.body.includes('__schema'))).toBe(true);

    await page.click('.graphiql-execute-button');
    await page.waitForFunction(
      () => document.querySelector('.graphiql-response .view-lines')?.textContent?.includes('NVLX'),
      { timeout: WAIT_MS },
    );
    const result = await editorText(page, '.graphiql-response .view-lines');
    expect(result).toMatch(/"symbol": "NVLX"/);
    expect(result).not.toMatch(/"errors"|Unexpected <EOF>/);
    expect(posts.find((p) => p.body.includes('CompanyPage'))?.key).toBe('demo-pro');

    fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT as `${string}.png` });
    console.log(`GraphiQL screenshot: ${SCREENSHOT}`);

    // Monaco's workers (the GraphQL language service among them) came from the gateway too
    for (const worker of ['editor.worker.bundle.js', 'json.worker.bundle.js', 'graphql.worker..bundle.js'])
      expect(seen).toContain(`${GRAPHIQL_ASSETS}monacoeditorwork/${worker}`);

    // an edit survives a reload: GraphiQL keeps it in the page's URL and its tabs in local storage
    await page.focus('.graphiql-query-editor textarea');
    await page.keyboard.down('Control');
    await page.keyboard.press('End');
    await page.keyboard.up('Control');
    await page.keyboard.type('\n#edited-in-the-browser-test');
    await page.waitForFunction(
      () => new URLSearchParams(location.search).get('query')?.includes('#edited-in-the-browser-test'),
      { timeout: WAIT_MS },
    );
    expect(await page.evaluate(() => localStorage.getItem('graphiql:tabState'))).toMatch(/CompanyPage/);
    await page.reload({ waitUntil: 'load', timeout: WAIT_MS });
    await page.waitForFunction(
      () =>
        document
          .querySelector('.graphiql-query-editor .view-lines')
          ?.textContent?.includes('#edited-in-the-browser-test'),
      { timeout: WAIT_MS },
    );
    expect(await editorText(page, '.graphiql-query-editor .view-lines')).toMatch(/query CompanyPage/);

    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
