/**
 * What a resource's manifest declares, and the spellings derived from its one name.
 *
 * A resource is declared once, in `resources/<noun>.ts`, and `resources/index.ts` lists the
 * manifests; every list that names all resources (the tiers, the limits, the response cache's
 * types, the import order, the sync plans, the sample tables, the REST routes, the schema modules)
 * is derived from that list (docs/architecture.md#adding-a-resource).
 *
 * The manifest is pure data and imports nothing of src/, so the lowest layers (domain/, config.ts)
 * can derive from it. The heavy parts of a resource stay in their own layers, each in the module
 * named by the resource's noun: `schema/<noun>.ts`, `rest/<noun>.ts`, `services/<noun>.ts`,
 * `ingest/resources/<noun>.ts`. A layer finds them by that noun: `ingest/registry.ts`,
 * `schema/index.ts` and `rest/routes.ts` import `<noun>.js` by name (a REST module without its
 * `routes` stops the start, naming the file).
 */
import type { Tier } from '../../generated/prisma/enums.js';

/** "balance sheets" -> "balanceSheets": the GraphQL and entitlement spelling. */
export type Camel<S extends string> = S extends `${infer Head} ${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
/** "balance sheet" -> "balance-sheet": module files, the CLI's resource names. */
export type Kebab<S extends string> = S extends `${infer Head} ${infer Tail}` ? `${Head}-${Kebab<Tail>}` : S;
/** "balance sheet" -> "BalanceSheet": the GraphQL record type and the Prisma model. */
export type Pascal<S extends string> = Capitalize<Camel<S>>;

export const camel = <S extends string>(s: S) => s.replace(/ (\w)/g, (_, c: string) => c.toUpperCase()) as Camel<S>;
export const kebab = <S extends string>(s: S) => s.replaceAll(' ', '-') as Kebab<S>;
export const pascal = <S extends string>(s: S) => `${s[0]!.toUpperCase()}${camel(s).slice(1)}` as Pascal<S>;

/** One thing a tier may be entitled to; a resource has one or more (fundamentals: lite and enhanced). */
export interface AccessInput {
  /** The entitlement's name; the resource's own (its plural, camel-cased) when absent. */
  readonly name?: string;
  readonly tier: Tier;
  /**
   * Where the price list names it among its tier's resources (the schema's `Tier` descriptions,
   * docs/security.md#authentication): the order is the vendor's, which no other order gives.
   */
  readonly listed: number;
  /** How the docs and the schema name it; the resource's plural when absent. */
  readonly words?: string;
  /** The GraphQL record types it guards (node(id) checks them); the resource's type when absent. */
  readonly types?: readonly string[];
}

/**
 * How `cli sync` pulls the resource from a service that speaks the legacy paths (ingest/sync.ts):
 * - `search`: the search path, one prefix per leading character;
 * - `numbered`: page-numbered, whole; per symbol of the upstream's security master if `perSymbol`;
 * - `cursor`: following next_url from the first page `query` asks for, whole;
 * - `marked`: page-numbered from the stored high-water mark (the route's `from`), advanced by
 *   each record's `markField`, written as an ISO time or to the second (`seconds`);
 * - `ticks`: per symbol, `timestamp.gte` the newest sip_timestamp seen, following next_url;
 * - `perSymbol`: per symbol of the upstream's security master, named by the path's `{symbol}`,
 *   following next_url, whole (a route that answers one security's records: its ticker events).
 */
export type SyncSpec =
  | { readonly pages: 'search'; readonly path: string; readonly size: number }
  | { readonly pages: 'numbered'; readonly path: string; readonly perSymbol?: boolean }
  | { readonly pages: 'cursor'; readonly path: string; readonly query: Readonly<Record<string, string | number>> }
  | { readonly pages: 'marked'; readonly path: string; readonly markField: string; readonly from: 'iso' | 'seconds' }
  | { readonly pages: 'ticks'; readonly path: string }
  | { readonly pages: 'perSymbol'; readonly path: `${string}{symbol}${string}` };

export interface ResourceInput {
  /** The one name, in words: every other spelling is derived from these two. */
  readonly singular: string;
  readonly plural: string;
  /** The record type when it is not the singular's (news: NewsItem). */
  readonly type?: string;
  readonly access: readonly AccessInput[];
  /** Resources whose rows it links to, imported before it (every record names its security by symbol). */
  readonly parents?: readonly string[];
  /**
   * Public reference data the response cache may keep: the record types of `access` are cached,
   * with these types that hold no data of their own beside them (parts of the record).
   */
  readonly cacheable?: readonly string[];
  /**
   * The stored text the schema serves that is not `short` (TEXT_LIMITS in domain/limits.ts), and
   * the list fields that come from a child list of one record (LIST_LIMITS), by schema coordinate.
   */
  readonly textKinds?: Readonly<Record<string, string>>;
  readonly listKinds?: Readonly<Record<string, string>>;
  /**
   * Its Prisma models, parents first, each with the key of its rows in the sample's reference
   * data (sample/generate.ts); `bulk` tables (trades, quotes) are streamed by the seed instead.
   */
  readonly tables?: readonly { readonly model: string; readonly sample?: string }[];
  readonly bulk?: boolean;
  /** Imported by `cli import` and `cli sync` (ingest/resources/<noun>.ts), pulled so. */
  readonly sync?: SyncSpec;
}

export type Resource<T extends ResourceInput> = T & {
  /** The module name in every layer: schema/balance-sheet.ts, rest/balance-sheet.ts ... */
  readonly noun: Kebab<T['singular']>;
  /** The CLI's name (`cli import balance-sheets`) and the sync's. */
  readonly name: Kebab<T['plural']>;
  /** The plural in GraphQL and in the seed's counts: balanceSheets. */
  readonly camel: Camel<T['plural']>;
  readonly typeName: TypeName<T>;
  /** `access` with every default filled in. */
  readonly entitlements: readonly Required<AccessInput>[];
};

type TypeName<T extends ResourceInput> = T['type'] extends string ? T['type'] : Pascal<T['singular']>;

/** The record types a manifest's entitlements guard, as a type. */
export type RecordTypeName<T extends ResourceInput> = T['access'][number] extends infer A
  ? A extends { types: readonly (infer X extends string)[] }
    ? X
    : TypeName<T>
  : never;

/** The names of a manifest's entitlements, as a type: `Resource` in domain/entitlements.ts. */
export type AccessName<T extends ResourceInput> = T['access'][number] extends infer A
  ? A extends { name: infer N extends string }
    ? N
    : Camel<T['plural']>
  : never;

export function defineResource<const T extends ResourceInput>(input: T): Resource<T> {
  const typeName = input.type ?? pascal(input.singular);
  return {
    ...input,
    noun: kebab(input.singular),
    name: kebab(input.plural),
    camel: camel(input.plural),
    typeName,
    entitlements: input.access.map((a) => ({
      name: a.name ?? camel(input.plural),
      tier: a.tier,
      listed: a.listed,
      words: a.words ?? input.plural,
      types: a.types ?? [typeName],
    })),
  } as unknown as Resource<T>;
}
