/**
 * Every resource, each declared once in its manifest (resources/<noun>.ts, shaped by
 * resources/manifest.ts). This is the one list that names them all: the others are derived from it.
 *
 * Listed in the order the REST routes and /openapi.json give them; `PARENTS_FIRST` is the order
 * to import, sync, seed and build them in, each after the resources it links to.
 */
import { balanceSheet } from './balance-sheet.js';
import { bar } from './bar.js';
import { calendar } from './calendar.js';
import { callSummary } from './call-summary.js';
import { condition } from './condition.js';
import { dividend } from './dividend.js';
import { exchange } from './exchange.js';
import { fundamental } from './fundamental.js';
import { indicator } from './indicator.js';
import { logo } from './logo.js';
import type { AccessName, RecordTypeName, Resource, ResourceInput } from './manifest.js';
import { news } from './news.js';
import { ocr } from './ocr.js';
import { pressRelease } from './press-release.js';
import { quote } from './quote.js';
import { rating } from './rating.js';
import { security } from './security.js';
import { snapshot } from './snapshot.js';
import { split } from './split.js';
import { tickerEvent } from './ticker-event.js';
import { tickerType } from './ticker-type.js';
import { trade } from './trade.js';

export const RESOURCES = [
  logo,
  balanceSheet,
  fundamental,
  security,
  pressRelease,
  rating,
  callSummary,
  news,
  // before the ticks, whose exchange ids it names
  exchange,
  condition,
  tickerType,
  calendar,
  split,
  dividend,
  tickerEvent,
  trade,
  quote,
  bar,
  snapshot,
  indicator,
  ocr,
] as const;

export type AnyResource = (typeof RESOURCES)[number];
/** The same list, each manifest seen through the shape all share (every optional part optional). */
export type Manifest = Resource<ResourceInput>;
export const MANIFESTS: readonly Manifest[] = RESOURCES;
/** A resource's noun, the name of its module in every layer: `balance-sheet`. */
export type ResourceNoun = AnyResource['noun'];
/** What a tier may be entitled to: `balanceSheets`, `enhancedFundamentals`, `ocr` ... */
export type AccessResource = AccessNames<AnyResource>;
type AccessNames<R> = R extends ResourceInput ? AccessName<R> : never;
/** The resources `cli import` and `cli sync` take (those with an importer), by their CLI name. */
export type ImportedResource = Extract<AnyResource, { sync: object }>;
export type ImportName = ImportedResource['name'];
/** The GraphQL record types of the resources the response cache may keep. */
export type CacheableType = RecordTypes<Extract<AnyResource, { cacheable: readonly string[] }>>;
type RecordTypes<R> = R extends ResourceInput ? RecordTypeName<R> : never;

function parentsFirst<R extends AnyResource>(resources: readonly R[]): readonly R[] {
  const done = new Set<string>();
  const out: R[] = [];
  const visit = (r: R, trail: readonly string[]) => {
    if (done.has(r.noun)) return;
    if (trail.includes(r.noun)) throw new Error(`resources link in a circle: ${[...trail, r.noun].join(' -> ')}`);
    for (const p of 'parents' in r ? (r.parents ?? []) : []) {
      const parent = resources.find((x) => x.noun === p);
      if (!parent) throw new Error(`resource ${r.noun}: its parent ${JSON.stringify(p)} is not a resource`);
      visit(parent, [...trail, r.noun]);
    }
    done.add(r.noun);
    out.push(r);
  };
  for (const r of resources) visit(r, []);
  return out;
}

const ORDERED = parentsFirst(RESOURCES);

/** Each resource after the ones it links to, otherwise in the order of RESOURCES. */
export const PARENTS_FIRST: readonly Manifest[] = ORDERED;

/** The imported resources (those whose manifest says how to sync them), parents first: the order of a full `cli sync`. */
export const IMPORTED: readonly ImportedResource[] = ORDERED.filter((r): r is ImportedResource => 'sync' in r);
