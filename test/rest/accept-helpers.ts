// What test/rest/accept.test.ts derives from the route table: a request each route answers with
// records, the forms of a date or a time, and answers reduced to what two askings must share.
import type { ParamSpec } from '../../src/rest/params.js';
import type { Route } from '../../src/rest/route.js';
import type { RestResult } from './helpers.js';

/** Values for the parameters a request needs, by name (the sample data has every resource for NVLX). */
export const VALUES: Record<string, string> = { symbol: 'NVLX', symbols: 'NVLX', tickers: 'NVLX', search: 'N' };

export type Params = Record<string, string>;

export const paramsOf = (route: Route): [string, ParamSpec][] => Object.entries(route.doc.query ?? {});

/** The route's path for NVLX and its required parameters: a request it answers with records. */
export function baseParams(route: Route): Params {
  const out: Params = {};
  for (const [name, spec] of paramsOf(route)) {
    if (!spec.required) continue;
    const value = VALUES[name] ?? (spec.type === 'string' ? spec.enum?.[0] : undefined);
    if (value === undefined) throw new Error(`no value for the required parameter ${name} of ${route.path}`);
    out[name] = value;
  }
  return out;
}

/** Values for a path's `:name` segments, by name: NVLX's day bars of the sample's last week. */
const PATH_VALUES: Record<string, string> = {
  multiplier: '1',
  timespan: 'day',
  from: '2026-11-16',
  to: '2026-11-20',
  date: '2026-11-20',
  direction: 'gainers',
};

/** A route's path with its `:name` segments filled: a symbol (NVLX) unless PATH_VALUES names it. */
export function pathOf(path: string): string {
  return path.replace(/:([a-z_]+)/gi, (_, name: string) => PATH_VALUES[name] ?? 'NVLX');
}

/** A request target: the path (its symbol NVLX), then the parameters in order, each encoded. */
export function target(route: Route, params: Params | [string, string][]): string {
  const path = pathOf(route.path);
  const pairs = Array.isArray(params) ? params : Object.entries(params);
  const query = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return query ? `${path}?${query}` : path;
}

function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== 'request_id' && k !== 'search_time_ms')
        // a next_url's cursor carries the parameters as they were written: the tests follow it instead
        .map(([k, x]) => [k, k === 'next_url' ? typeof x : strip(x)]),
    );
  return v;
}

/** What two answers to the same question share: status, body (but the request's id, the time it took and the next_url's text), total. */
export function answer(r: RestResult) {
  return { status: r.status, total: r.headers.get('x-total-count'), body: strip(r.body) };
}

/** The records of an answer, whatever its envelope. */
export function recordsOf(body: any): unknown[] {
  if (Array.isArray(body)) return body;
  if (Array.isArray(body?.data)) return body.data;
  // Massive's indicators: the values of one series; its status and open-close: one record
  if (Array.isArray(body?.results?.values)) return body.results.values;
  if (body?.market !== undefined || (body?.symbol !== undefined && body?.from !== undefined)) return [body];
  // Massive's snapshots: a list of them, or one; its last trade and quote: one record
  if (Array.isArray(body?.tickers)) return body.tickers;
  if (body?.ticker && typeof body.ticker === 'object') return [body.ticker];
  if (body?.results?.T !== undefined && !Array.isArray(body.results)) return [body.results];
  return body?.data?.hits ?? body?.results?.events ?? body?.results ?? body?.Logos ?? [];
}

/** Every time in the records, in milliseconds: ISO strings, dates, and nanosecond integers. */
export function timesIn(records: unknown[]): { instants: number[]; dates: string[] } {
  const instants: number[] = [];
  const dates: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) instants.push(Date.parse(v));
    else if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v)) dates.push(v);
    else if (typeof v === 'number' && v > 1e17) instants.push(Math.floor(v / 1e6));
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(records);
  return { instants: instants.sort((a, b) => a - b), dates: dates.sort() };
}

const median = <T>(xs: T[]): T | undefined => xs[Math.floor(xs.length / 2)];

/** `t` as a clock in a zone `minutes` east of UTC: YYYY-MM-DDTHH:MM:SS. */
function clockAt(t: Date, minutes: number): string {
  return new Date(t.getTime() + minutes * 60_000).toISOString().slice(0, 19);
}

/** The forms of one instant (to the minute, so HH:MM is one of them): each means `t`. */
export function instantForms(t: Date): string[] {
  const iso = t.toISOString(); // 2026-11-19T14:30:00.000Z
  const [date, clock] = [iso.slice(0, 10), iso.slice(11, 19)];
  return [
    `${date} ${clock}`,
    `${date}T${clock}`,
    `${date}T${clock.slice(0, 5)}`,
    `${date}t${clock}z`,
    `${date}T${clock}Z`,
    `${date}T${clock}.000000000Z`,
    `${date}T${clock}+00:00`,
    `${clockAt(t, 330)}+05:30`,
    `${clockAt(t, 330)} 05:30`, // the + of an offset sent unencoded arrives as a space
    `${clockAt(t, -300)}-0500`,
    `${clockAt(t, 60)}+01`,
  ];
}

/** A date and an instant the records split on: the middle of the times they hold. */
export function splitPoint(records: unknown[]): { date: string; instant: Date } {
  const { instants, dates } = timesIn(records);
  const ms = median(instants) ?? Date.parse(`${median(dates) ?? '2026-11-19'}T12:00:00Z`);
  const instant = new Date(Math.floor(ms / 60_000) * 60_000);
  return { date: median(dates) ?? instant.toISOString().slice(0, 10), instant };
}

export const nanos = (ms: number) => (BigInt(ms) * 1_000_000n).toString();
export const DAY_MS = 86_400_000;
