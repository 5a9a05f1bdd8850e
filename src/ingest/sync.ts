// `cli sync`: pulls every resource from a service that speaks the legacy REST paths (another
// instance of this gateway, or the legacy vendor) and writes it through the resources' importers.
//
// How each resource is pulled is its manifest's `sync` (resources/<noun>.ts; the kinds are
// SyncSpec's, resources/manifest.ts), since the legacy paths give no "changed since" for every resource:
// - incremental, by a high-water mark kept per source in SyncState: `ticks` (per symbol,
//   `timestamp.gte` = the newest sip_timestamp seen, ascending, following next_url) and `marked`
//   (`from` = the newest value of the record's mark field). The mark's own records are asked for
//   again (gte), so equal timestamps are never skipped; they come back unchanged.
// - whole, compared record by record (only changed records are written): `search` (one prefix per
//   leading character), `numbered` (per symbol or not), `cursor` (following next_url).
// Transient failures (network errors, 5xx) are retried with exponential backoff and jitter; a 429
// waits for its Retry-After. A resource the key may not read (401/403) is reported and skipped.
import type { Db } from '../db/client.js';
import type { EventBus } from '../runtime/events.js';
import { IMPORTED } from '../resources/index.js';
import type { SyncSpec } from '../resources/manifest.js';
import { readHighWater, writeHighWater } from '../services/sync-state.js';
import {
  IMPORT_RESOURCES,
  publishInserted,
  RejectError,
  writeImported,
  type Importer,
  type ImportResource,
} from './importer.js';
import type { WriteCounts } from '../db/upsert.js';
import { importerFor } from './registry.js';
import { grouped } from './progress.js';
import { RejectTally } from './reject-summary.js';
import { shownUrl, SyncError, Upstream, type UpstreamOptions } from './upstream.js';

export { SyncError };

export interface SyncOptions extends UpstreamOptions {
  resources?: readonly ImportResource[];
  /** Ignore stored marks and pull incremental resources from this time on (ISO 8601 date or time). */
  since?: string;
  /** New trades and quotes are published here in their page's transaction, press releases and news after it commits (importer.ts). */
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

const SEARCH_PREFIXES = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];

/** One page of an upstream answer: its records and how to get the next one. */
interface Page {
  records: unknown[];
  next?: URL | string;
}

type Pager = AsyncGenerator<Page, void, undefined>;

const str = (v: unknown) =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'bigint' ? String(v) : undefined;
const field = (record: unknown, key: string) =>
  record && typeof record === 'object' ? (record as Record<string, unknown>)[key] : undefined;

/** Page-number routes: stop at a short page or at pagination.page_count. */
async function* numberedPages(
  up: Upstream,
  importer: Importer<unknown>,
  path: string,
  params: Record<string, string | number | undefined>,
  sizeParam: string,
  size: number,
): Pager {
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

/**
 * Cursor routes: follow next_url until it is absent. A next_url this pull has asked for already
 * would be followed forever, so it stops the resource (as one leaving the origin of --from does,
 * in Upstream.resolve), before anything is asked for again.
 */
async function* cursorPages(up: Upstream, importer: Importer<unknown>, first: URL): Pager {
  const asked = new Set<string>();
  let next: URL | string | undefined = first;
  while (next) {
    const url = up.resolve(next);
    if (asked.has(url.href))
      throw new SyncError(
        `the upstream's next_url leads back to GET ${shownUrl(url)}, asked for already in this pull (after ${asked.size} pages): stopped there instead of going round again`,
      );
    asked.add(url.href);
    const body = await up.get(url);
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

/** "2026-01-02T03:04:05.000Z" → "2026-01-02 03:04:05", the `from` of a route to the second (ratings: a tie is asked again). */
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

/** Trades and quotes: per symbol, from the newest sip_timestamp seen (or `since`), ascending. */
const tickPlan = (key: string, path: string): Plan => ({
  async *runs({ up, importer, symbols, markOf, since }) {
    for (const symbol of await symbols()) {
      const markKey = `${key}:${symbol}`;
      const mark = (await markOf(markKey)) ?? (since ? sinceNanos(since) : undefined);
      const first = up.url(`${path}/${encodeURIComponent(symbol)}`, {
        order: 'asc',
        limit: 5000,
        'timestamp.gte': mark,
      });
      yield {
        markKey,
        pager: cursorPages(up, importer, first),
        mark: (r) => str(field(r, 'sip_timestamp')),
        defaults: { symbol },
      };
    }
  },
});

/**
 * A resource paged by number whose route filters by time (`from`): one run from the resource's
 * high-water mark (or `since`), advanced by each record's `markField`.
 */
const markedPlan = (key: string, path: string, markField: string, from: (mark: string) => string): Plan => ({
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

/** How `cli sync` pulls a resource, as its manifest's `sync` says (resources/manifest.ts, SyncSpec). */
function planOf(resource: ImportResource): Plan {
  const spec = IMPORTED.find((r) => r.name === resource)!.sync as SyncSpec;
  switch (spec.pages) {
    case 'search':
      return {
        async *runs({ up, importer }) {
          for (const prefix of SEARCH_PREFIXES) {
            const search = { search: prefix, search_type: 'symbol' };
            yield { pager: numberedPages(up, importer, spec.path, search, 'per_page', spec.size) };
          }
        },
      };
    case 'numbered':
      return {
        async *runs({ up, importer, symbols }) {
          if (!spec.perSymbol) {
            yield { pager: numberedPages(up, importer, spec.path, {}, 'page_size', 100) };
            return;
          }
          for (const symbol of await symbols())
            yield { pager: numberedPages(up, importer, spec.path, { symbol }, 'page_size', 100) };
        },
      };
    case 'cursor':
      return {
        async *runs({ up, importer }) {
          yield { pager: cursorPages(up, importer, up.url(spec.path, spec.query)) };
        },
      };
    case 'marked':
      return markedPlan(resource, spec.path, spec.markField, spec.from === 'iso' ? isoTime : ratingTime);
    case 'ticks':
      return tickPlan(resource, spec.path);
    case 'perSymbol':
      return {
        async *runs({ up, importer, symbols }) {
          for (const symbol of await symbols())
            yield {
              pager: cursorPages(up, importer, up.url(spec.path.replace('{symbol}', encodeURIComponent(symbol)), {})),
            };
        },
      };
  }
}

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
        for await (const { pager } of planOf('securities').runs({
          up,
          importer,
          symbols: async () => [],
          markOf: async () => undefined,
        })) {
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
    // the first record breaking each rule in full, then one line per rule: not one per record
    const rejects = new RejectTally();
    const markOf = async (key: string) => (options.since ? undefined : readHighWater(db, source, key));
    try {
      for await (const run of planOf(resource).runs({ up, importer, symbols, markOf, since: options.since })) {
        let mark: string | undefined;
        let rows = 0;
        for await (const page of run.pager) {
          const parsed: unknown[] = [];
          for (const raw of page.records) {
            const record =
              run.defaults && raw && typeof raw === 'object' && !Array.isArray(raw) ? { ...run.defaults, ...raw } : raw;
            report.fetched++;
            if (resource === 'securities') collectSymbol(record);
            try {
              parsed.push(importer.parse(record));
              if (run.mark) mark = newer(mark, run.mark(record));
            } catch (e) {
              if (!(e instanceof RejectError)) throw e;
              report.rejected++;
              if (rejects.add({ reason: e.reason }, `record ${grouped(report.fetched)} fetched`))
                log(`  ${resource}: rejected a record: ${e.reason}`);
            }
          }
          const byKey = new Map(parsed.map((row) => [importer.key(row), row]));
          if (byKey.size) {
            const counts = await writeImported(db, importer, [...byKey.values()], options.events);
            if (options.events) {
              await publishInserted(db, importer, counts, options.events).catch((e: Error) =>
                log(`  ${resource}: stored ${counts.inserted} rows but could not publish them: ${e.message}`),
              );
            }
            report.inserted += counts.inserted;
            report.updated += counts.updated;
            report.unchanged += counts.unchanged;
            rows += byKey.size;
          }
        }
        // a mark only moves after everything up to it is stored
        if (run.markKey && mark)
          await writeHighWater(
            db,
            source,
            run.markKey,
            newer(await readHighWater(db, source, run.markKey), mark)!,
            rows,
          );
      }
    } catch (e) {
      if (!(e instanceof SyncError)) throw e;
      report.skipped = e.message;
      unreachable = e.unreachable;
      log(`  ${resource}: not synced: ${e.message}`);
    }
    for (const line of rejects.lines(report.fetched)) log(`  ${resource}: ${line}`);
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

const emptyReport = (resource: ImportResource): ResourceReport => ({
  resource,
  requests: 0,
  fetched: 0,
  inserted: 0,
  updated: 0,
  unchanged: 0,
  rejected: 0,
  ms: 0,
});

const reportLine = (r: ResourceReport) =>
  `${r.resource}: ${r.fetched} fetched in ${r.requests} requests, ${r.inserted} new, ${r.updated} changed, ${r.unchanged} unchanged` +
  `${r.rejected ? `, ${r.rejected} rejected` : ''}${r.skipped ? ' (incomplete)' : ''} (${r.ms} ms)`;
