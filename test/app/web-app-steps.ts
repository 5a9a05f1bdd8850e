// Steps of the browser test of /app (test/app/web-app.test.ts) that stand alone: a listener that
// can be stopped and started again, what the chart's canvas holds, and the checks of the header,
// the movers and live trades resuming after the server was down.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'puppeteer-core';
import { expect } from 'vitest';
import type { App } from '../../src/app.js';
import { attachWebSocket } from '../../src/graphql/ws.js';
import { SEQ, SIP, trade } from '../graphql/subscription-helpers.js';

/** The longest the test waits for the browser at each step. */
export const WAIT_MS = 15_000;

/** REST's answer at `url`, for the demo pro key. */
export const restJson = async <T>(app: App, url: string): Promise<T> =>
  (await (await app.fetch(`http://test${url}`, { headers: { 'x-api-key': 'demo-pro' } })).json()) as T;

const text = (page: Page, selector: string) => page.$eval(selector, (e) => e.textContent ?? '');

/** The app on a port of 127.0.0.1 that can be stopped (its WebSockets cut) and started again on the same port. */
export async function restartableListener(app: App) {
  let server: http.Server | undefined;
  let socket: { close(): Promise<void> } | undefined;
  let port = 0;
  const start = async () => {
    server = http.createServer(app);
    socket = attachWebSocket(server, app, { isProd: false });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    await socket?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  };
  await start();
  return { origin: `http://127.0.0.1:${port}`, start, stop };
}

/** Painted pixels of the chart's canvas, and how many of them are the price line's blue (#2563eb). */
export const chartPixels = (page: Page) =>
  page.$eval('.plot canvas', (canvas) => {
    const c = canvas as HTMLCanvasElement;
    const { data } = c.getContext('2d')!.getImageData(0, 0, c.width, c.height);
    let painted = 0;
    let line = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3]! === 0) continue;
      painted++;
      if (data[i + 3]! > 200 && data[i]! < 90 && data[i + 1]! > 70 && data[i + 1]! < 130 && data[i + 2]! > 200) line++;
    }
    return { painted, line, pixels: data.length / 4 };
  });
/** The header's price is the snapshot's last trade; its change is against the previous session's close (REST's open-close). */
export async function headerShowsSnapshot(app: App, page: Page, previousClose: number) {
  const { ticker } = await restJson<{ ticker: { lastTrade: { p: number } } }>(
    app,
    '/stocks/v2/snapshot/locale/us/markets/stocks/tickers/NVLX',
  );
  await page.waitForSelector('[data-testid="price"]', { timeout: WAIT_MS });
  expect(Number((await text(page, '[data-testid="price"]')).replaceAll(',', ''))).toBeCloseTo(ticker.lastTrade.p, 4);
  const change = ticker.lastTrade.p - previousClose;
  const sign = change < 0 ? '' : '+';
  expect(await text(page, '[data-testid="change-amount"]')).toBe(`${sign}${change.toFixed(2)}`);
  expect(await text(page, '[data-testid="change"]')).toBe(`${sign}${((change / previousClose) * 100).toFixed(2)}%`);
}

/** The movers panel lists REST's gainers and losers, in their order. */
export async function moversAsRest(app: App, page: Page) {
  for (const side of ['gainers', 'losers']) {
    const { tickers } = await restJson<{ tickers: { ticker: string }[] }>(
      app,
      `/stocks/v2/snapshot/locale/us/markets/stocks/${side}`,
    );
    expect(tickers.length).toBeGreaterThan(0);
    const selector = `.movers [data-testid="${side}"] li b`;
    await page.waitForSelector(selector, { timeout: WAIT_MS });
    expect(await page.$$eval(selector, (bs) => bs.map((b) => b.textContent))).toEqual(tickers.map((t) => t.ticker));
  }
}

/**
 * The server stops with the page open (its WebSockets closed, its port refusing), two trades are
 * stored meanwhile, and it starts again on the same port: graphql-ws reconnects, the page
 * subscribes `after` the last position it had, and the two arrive as replayed, then a live one,
 * each once.
 */
export async function resumesAfterServerDown(
  page: Page,
  listener: { start(): Promise<void>; stop(): Promise<void> },
  importTrades: (trades: object[]) => Promise<void>,
  /** Told when the server goes down and when the page is live again: failed reconnects are logged between. */
  down: (isDown: boolean) => void,
) {
  const rows = '[data-testid="live-trades"] li';
  expect(await page.$$(rows)).toHaveLength(1);
  down(true);
  await listener.stop();
  await page.waitForSelector('.live [data-state="connecting"]', { timeout: WAIT_MS });
  const missed = [413.25, 414.75].map((price, i) => ({
    ...trade('NVLX', SEQ + BigInt(i + 1), SIP + BigInt(i + 1) * 1_000_000n),
    price,
  }));
  await importTrades(missed);
  await listener.start();
  await page.waitForSelector('.live [data-state="live"]', { timeout: WAIT_MS });
  down(false);
  await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 3, { timeout: WAIT_MS }, rows);
  // a live trade after the replay: any duplicate of a replayed one would have come before it
  await importTrades([{ ...trade('NVLX', SEQ + 3n, SIP + 3_000_000n), price: 415.5 }]);
  await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 4, { timeout: WAIT_MS }, rows);
  const listed = await page.$$eval(rows, (lis) =>
    lis.map((li) => ({
      price: Number(li.querySelector('.num')!.textContent),
      replay: li.classList.contains('replay'),
    })),
  );
  expect(listed).toEqual([
    { price: 415.5, replay: false },
    { price: 414.75, replay: true },
    { price: 413.25, replay: true },
    { price: 412.5, replay: false },
  ]);
  expect(Number(await text(page, '[data-testid="price"]'))).toBe(415.5);
}
