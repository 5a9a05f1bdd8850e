// `cli sync`: pulls every resource from a service that speaks the legacy REST paths (another
// instance of this gateway, or the legacy vendor) and writes it through the resources' importers.
//
// How each resource is pulled (the legacy paths give no "changed since" for every resource):
// - incremental, by a high-water mark kept per source in SyncState: trades and quotes (per symbol,
//   `timestamp.gte` = the newest sip_timestamp seen, ascending, following next_url), press releases
//   (`from` = newest PublishTime), ratings (`from` = newest created_at), call summaries (`from` =
//   newest call_date). The mark's own records are asked for again (gte), so equal timestamps are
//   never skipped; they come back unchanged.
// - whole, compared record by record (only changed records are written): securities (the search
//   path, one prefix per leading character), logos, balance sheets (following next_url),
//   fundamentals and news (per symbol).
// Transient failures (network errors, 5xx) are retried with exponential backoff and jitter; a 429
// waits for its Retry-After. A resource the key may not read (401/403) is reported and skipped.
import type { Db } from '../db/client.js';
import type { EventBus } from '../runtime/events.js';
import { readHighWater, writeHighWater } from '../services/sync-state.js';
import { IMPORT_RESOURCES, publishInserted, RejectError, type Importer, type ImportResource } from './importer.js';
import type { WriteCounts } from '../db/upsert.js';
import { fetchFailure } from './fetch-failure.js';
import { parseJsonExact } from './json.js';
import { importerFor } from './registry.js';

export interface SyncOptions {
  /** Base URL of the upstream, e.g. https://vendor.example.com */
  from: string;
  apikey: string;
  resources?: readonly ImportResource[];
  /** Ignore stored marks and pull incremental resources from this time on (ISO 8601 date or time). */
  since?: string;
  fetch?: typeof fetch;
  log?: (line: string) => void;
  /** Attempts per request before the resource fails (default 6). */
  attempts?: number;
  /** First backoff step in ms (default 250), doubled per retry, capped at 30 s. */
  backoffMs?: number;
  /** New trades, quotes, press releases and news are published here after their page commits (see publishInserted in importer.ts). */
  events?: EventBus;
}

export interface ResourceReport extends WriteCounts {
  resource: ImportResource;
  requests: number;
  fetched: number;
  rejected: number;
  ms: number;
  /** why the resource was not (fully) synced */
  skipped?: string;
}

export class SyncError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** Why the upstream cannot be reached at all (fetch-failure.ts): the resources after this one are not tried. */
    readonly unreachable?: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SEARCH_PREFIXES = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];

/** `Retry-After` as seconds or an HTTP date, in ms; capped so a hostile upstream cannot park us. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), 120_000) : undefined;
}

const MAX_REDIRECTS = 5;

class Upstream {
  requests = 0;
  private readonly base: URL;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: SyncOptions) {
    this.base = new URL(options.from);
    this.fetchFn = options.fetch ?? fetch;
  }

  url(path: string, params: Record<string, string | number | undefined> = {}): URL {
    const url = new URL(path.replace(/^\//, ''), this.base.href.endsWith('/') ? this.base : new URL(`${this.base.href}/`));
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, String(v));
    return url;
  }

  /**
   * The URL to request, with the key: only on the origin of `--from`. A next_url or a redirect to
   * any other origin stops the resource, and nothing (the key least of all) is sent there.
   */
  private target(link: URL | string, base: URL | string): URL {
    let url: URL;
    try {
      url = new URL(link, base);
    } catch {
      throw new SyncError(`the upstream gave a link that is not a URL: ${JSON.stringify(String(link).slice(0, 200))}`);
    }
    if (url.origin !== this.base.origin) {
      throw new SyncError(`the upstream links to ${url.origin}, another origin than --from (${this.base.origin}); stopped there, and nothing (the key least of all) was sent to it`);
    }
    if (!url.searchParams.has('apikey')) url.searchParams.set('apikey', this.options.apikey);
    return url;
  }

  /** GET a JSON body; big integers stay exact (they arrive as strings where a Number would round). */
  async get(link: URL | string): Promise<unknown> {
    let url = this.target(link, this.base);
    const attempts = this.options.attempts ?? 6;
    const backoff = this.options.backoffMs ?? 250;
    let redirects = 0;
    let said: string | undefined;
    for (let attempt = 1; ; attempt++) {
      this.requests++;
      const shown = url.pathname + url.search.replace(/apikey=[^&]*/, 'apikey=…');
      let wait: number;
      let problem: string;
      let unreachable: string | undefined;
      try {
        // redirects are followed here, where their origin is checked, not by fetch
        const res = await this.fetchFn(url, { headers: { accept: 'application/json' }, redirect: 'manual' });
        const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
        if (location !== null) {
          await res.body?.cancel();
          if (++redirects > MAX_REDIRECTS) throw new SyncError(`more than ${MAX_REDIRECTS} redirects from GET ${shown}`);
          url = this.target(location, url);
          attempt--;
          continue;
        }
        const text = await res.text();
        if (res.ok) return parseJsonExact(text);
        problem = `${res.status} from GET ${shown}: ${text.slice(0, 200)}`;
        if (res.status === 429) {
          wait = retryAfterMs(res.headers.get('retry-after')) ?? backoff * 2 ** (attempt - 1);
        } else if (res.status >= 500) {
          wait = Math.min(backoff * 2 ** (attempt - 1), 30_000) * (0.5 + Math.random() / 2);
        } else {
          throw new SyncError(problem, res.status);
        }
      } catch (e) {
        if (e instanceof SyncError) throw e;
        const failure = fetchFailure(e, url);
        unreachable = failure?.unreachable ? failure.message : undefined;
        problem = `GET ${shown} failed: ${failure?.message ?? (e as Error).message}`;
        wait = Math.min(backoff * 2 ** (attempt - 1), 30_000) * (0.5 + Math.random() / 2);
      }
      if (attempt >= attempts) throw new SyncError(`${problem} (gave up after ${attempt} attempts)`, undefined, unreachable);
      // the same problem again is not repeated: a dead upstream gives one line, then the waits
      this.options.log?.(`  retrying in ${Math.round(wait)} ms (attempt ${attempt + 1} of ${attempts})${problem === said ? '' : `: ${problem}`}`);
      said = problem;
      await sleep(wait);
    }
  }
}

/** One page of an upstream answer: its records and how to get the next one. */
interface Page {
  records: unknown[];
  next?: URL | string;
}

type Pager = AsyncGenerator<Page, void, undefined>;

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined);
const field = (record: unknown, key: string) => (record && typeof record === 'object' ? (record as Record<string, unknown>)[key] : undefined);

/** Page-number routes: stop at a short page or at pagination.page_count. */
async function* numberedPages(up: Upstream, importer: Importer<unknown>, path: string, params: Record<string, string | number | undefined>, sizeParam: string, size: number): Pager {
  for (let page = 1; ; page++) {
    const body = await up.get(up.url(path, { ...params, page, [sizeParam]: size }));
    const records = importer.recordsOf(body) ?? [];
    yield { records };
    const pageCount = field(field(body, 'pagination'), 'page_count');
    const found = field(field(body, 'data'), 'found');
    if (records.length < size) return;
    if (typeof pageCount === 'number' && page >= pageCount) return;
    if (typeof found === 'number' && page * size >= found) return;
  }
}

/** Cursor routes: follow next_url until it is absent. */
async function* cursorPages(up: Upstream, importer: Importer<unknown>, first: URL): Pager {
  let next: URL | string | undefined = first;
  while (next) {
    const body = await up.get(next);
    const records = importer.recordsOf(body) ?? [];
    next = str(field(body, 'next_url'));
    yield { records };
  }
}

/** Newest value by the comparison that fits the mark (numeric for nanoseconds, text for ISO times). */
function newer(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return BigInt(a) >= BigInt(b) ? a : b;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

/** "2026-01-02T03:04:05.000Z" → "2026-01-02 03:04:05", the ratings route's `from` format (seconds: a tie is asked again). */
const ratingTime = (iso: string) => new Date(iso).toISOString().slice(0, 19).replace('T', ' ');

interface Plan {
  /** pagers to run, each with the mark key it advances (resource, or resource:SYMBOL) */
  runs(ctx: PlanContext): AsyncGenerator<Run>;
}

interface Run {
  pager: Pager;
  /** the SyncState key this run advances (resource, or resource:SYMBOL), and a record's mark */
  markKey?: string;
  mark?: (record: unknown) => string | undefined;
  /** fields the route's path carries rather than its records (the symbol of a trades page) */
  defaults?: Record<string, unknown>;
}

interface PlanContext {
  up: Upstream;
  importer: Importer<unknown>;
  symbols: () => Promise<string[]>;
  markOf: (key: string) => Promise<string | undefined>;
  since?: string;
}

const sinceNanos = (since: string) => (BigInt(Date.parse(since)) * 1_000_000n).toString();

const tickPlan = (kind: 'trades' | 'quotes'): Plan => ({
  async *runs({ up, importer, symbols, markOf, since }) {
    for (const symbol of await symbols()) {
      const markKey = `${kind}:${symbol}`;
      const mark = (await markOf(markKey)) ?? (since ? sinceNanos(since) : undefined);
      const first = up.url(`/stocks/v3/${kind}/${encodeURIComponent(symbol)}`, { order: 'asc', limit: 5000, 'timestamp.gte': mark });
      yield { markKey, pager: cursorPages(up, importer, first), mark: (r) => str(field(r, 'sip_timestamp')), defaults: { symbol } };
    }
  },
});

/**
 * A resource paged by number whose route filters by time (`from`): one run from the resource's
 * high-water mark (or `since`), advanced by each record's `markField`.
 */
const markedPlan = (key: ImportResource, path: string, markField: string, from: (mark: string) => string): Plan => ({
  async *runs({ up, importer, markOf, since }) {
    const mark = (await markOf(key)) ?? since;
    yield {
      markKey: key,
      pager: numberedPages(up, importer, path, { from: mark && from(mark) }, 'page_size', 100),
      mark: (r) => str(field(r, markField)),
    };
  },
});

const isoTime = (mark: string) => new Date(mark).toISOString();

const PLANS: Record<ImportResource, Plan> = {
  securities: {
    async *runs({ up, importer }) {
      for (const prefix of SEARCH_PREFIXES) {
        yield { pager: numberedPages(up, importer, '/search/api/v1/securities', { search: prefix, search_type: 'symbol' }, 'per_page', 250) };
      }
    },
  },
  logos: {
    async *runs({ up, importer }) {
      yield { pager: numberedPages(up, importer, '/api/v1/logos', {}, 'page_size', 100) };
    },
  },
  'balance-sheets': {
    async *runs({ up, importer }) {
      yield { pager: cursorPages(up, importer, up.url('/stocks/v1/fundamentals/balance-sheet', { limit: 1000, sort: 'period_end.asc' })) };
    },
  },
  fundamentals: {
    async *runs({ up, importer, symbols }) {
      for (const symbol of await symbols()) {
        yield { pager: numberedPages(up, importer, '/delivery/api/v1/fundamentals/enhanced', { symbol }, 'page_size', 100) };
      }
    },
  },
  'press-releases': markedPlan('press-releases', '/streamhive/api/v1/data', 'PublishTime', isoTime),
  ratings: markedPlan('ratings', '/rating/api/v1/ratings', 'created_at', ratingTime),
  'call-summaries': markedPlan('call-summaries', '/delivery/api/v1/summaries', 'call_date', isoTime),
  news: {
    async *runs({ up, importer, symbols }) {
      for (const symbol of await symbols()) {
        yield { pager: numberedPages(up, importer, '/news/api/v1/news', { symbol }, 'page_size', 100) };
      }
    },
  },
  trades: tickPlan('trades'),
  quotes: tickPlan('quotes'),
};

/** The source's identity in SyncState: its origin and path, never the key. */
export const sourceOf = (from: string) => {
  const u = new URL(from);
  return `${u.origin}${u.pathname.replace(/\/$/, '')}`;
};

/** The upstream's symbols: from its security master, synced first when asked for, else read when first needed. */
function upstreamSymbols(up: Upstream): { symbols: () => Promise<string[]>; collectSymbol: (record: unknown) => void } {
  let symbolList: Promise<string[]> | undefined;
  const seenSymbols = new Set<string>();
  const collectSymbol = (record: unknown) => {
    const s = str(field(record, 'symbol'));
    if (s) seenSymbols.add(s);
  };
  const symbols = () =>
    (symbolList ??= (async () => {
      if (seenSymbols.size === 0) {
        const importer = await importerFor('securities');
        for await (const { pager } of PLANS.securities.runs({ up, importer, symbols: async () => [], markOf: async () => undefined })) {
          for await (const page of pager) for (const r of page.records) collectSymbol(r);
        }
      }
      return [...seenSymbols].sort();
    })());
  return { symbols, collectSymbol };
}

export async function sync(db: Db, options: SyncOptions): Promise<ResourceReport[]> {
  const log = options.log ?? (() => {});
  const source = sourceOf(options.from);
  const up = new Upstream(options);
  const wanted = options.resources ?? IMPORT_RESOURCES;
  const { symbols, collectSymbol } = upstreamSymbols(up);

  const reports: ResourceReport[] = [];
  /** Why the upstream cannot be reached, once a resource found out: the rest are not tried. */
  let unreachable: string | undefined;
  const order = IMPORT_RESOURCES.filter((r) => wanted.includes(r));
  for (const resource of order) {
    if (unreachable) break;
    const t0 = performance.now();
    const importer = await importerFor(resource);
    const report = emptyReport(resource);
    const requestsBefore = up.requests;
    const markOf = async (key: string) => (options.since ? undefined : readHighWater(db, source, key));
    try {
      for await (const run of PLANS[resource].runs({ up, importer, symbols, markOf, since: options.since })) {
        let mark: string | undefined;
        let rows = 0;
        for await (const page of run.pager) {
          const parsed: unknown[] = [];
          for (const raw of page.records) {
            const record = run.defaults && raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...run.defaults, ...raw } : raw;
            report.fetched++;
            if (resource === 'securities') collectSymbol(record);
            try {
              parsed.push(importer.parse(record));
              if (run.mark) mark = newer(mark, run.mark(record));
            } catch (e) {
              if (!(e instanceof RejectError)) throw e;
              report.rejected++;
              log(`  ${resource}: rejected a record: ${e.reason}`);
            }
          }
          const byKey = new Map(parsed.map((row) => [importer.key(row), row]));
          if (byKey.size) {
            const counts = await importer.write(db, [...byKey.values()]);
            if (options.events) {
              await publishInserted(db, importer, counts, options.events).catch((e: Error) => log(`  ${resource}: stored ${counts.inserted} rows but could not publish them: ${e.message}`));
            }
            report.inserted += counts.inserted;
            report.updated += counts.updated;
            report.unchanged += counts.unchanged;
            rows += byKey.size;
          }
        }
        // a mark only moves after everything up to it is stored
        if (run.markKey && mark) await writeHighWater(db, source, run.markKey, newer(await readHighWater(db, source, run.markKey), mark)!, rows);
      }
    } catch (e) {
      if (!(e instanceof SyncError)) throw e;
      report.skipped = e.message;
      unreachable = e.unreachable;
      log(`  ${resource}: not synced: ${e.message}`);
    }
    report.requests = up.requests - requestsBefore;
    report.ms = Math.round(performance.now() - t0);
    reports.push(report);
    log(reportLine(report));
  }
  const untried = order.slice(reports.length);
  if (unreachable && untried.length) {
    log(`stopped: ${unreachable}; not tried: ${untried.join(', ')}`);
    for (const resource of untried) reports.push({ ...emptyReport(resource), skipped: `not tried: ${unreachable}` });
  }
  return reports;
}

const emptyReport = (resource: ImportResource): ResourceReport => ({ resource, requests: 0, fetched: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, ms: 0 });

const reportLine = (r: ResourceReport) =>
  `${r.resource}: ${r.fetched} fetched in ${r.requests} requests, ${r.inserted} new, ${r.updated} changed, ${r.unchanged} unchanged` +
  `${r.rejected ? `, ${r.rejected} rejected` : ''}${r.skipped ? ' (incomplete)' : ''} (${r.ms} ms)`;
