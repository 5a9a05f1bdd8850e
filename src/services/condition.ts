// The condition codes as Massive's GET /v3/reference/conditions selects and orders them, read from
// domain/conditions.ts (no table): one selection for the REST route and the GraphQL field.
import {
  decodeCursor,
  encodeCursor,
  type Direction,
  type ForwardArgs,
  type Ordering,
  type Page,
} from '../db/keyset.js';
import { CONDITIONS, type Condition, type ConditionDataType, type Sip } from '../domain/conditions.js';

export type { Condition, ConditionDataType };

/** Massive's asset classes of the `asset_class` filter; only stocks has conditions here. */
export const CONDITION_ASSET_CLASSES = ['stocks', 'options', 'crypto', 'fx'] as const;
export type ConditionAssetClass = (typeof CONDITION_ASSET_CLASSES)[number];

export const CONDITION_DATA_TYPES: readonly ConditionDataType[] = ['trade', 'bbo', 'nbbo'];

/** The SIPs the `sip` filter takes, as Massive documents them (its records also map FINRA_TDDS codes). */
export const CONDITION_SIPS = ['CTA', 'UTP', 'OPRA'] as const satisfies readonly Sip[];
export type ConditionSip = (typeof CONDITION_SIPS)[number];

/** Massive's `sort` values; `asset_class` first, the default. */
export const CONDITION_SORTS = ['asset_class', 'id', 'type', 'name', 'data_types', 'legacy'] as const;
export type ConditionSort = (typeof CONDITION_SORTS)[number];

/** Every condition there is: a list answered whole (GraphQL) is at most this long, and the cost analysis counts it so. */
export const MAX_CONDITIONS = CONDITIONS.length;

export interface ConditionFilter {
  assetClass?: ConditionAssetClass | undefined;
  dataType?: ConditionDataType | undefined;
  id?: number | undefined;
  /** Conditions with a code from this SIP. */
  sip?: ConditionSip | undefined;
}

/** Each sort's key, and its type in a cursor. */
const SORT_KEY: Readonly<Record<ConditionSort, { type: 'string' | 'int'; of: (c: Condition) => string | number }>> = {
  asset_class: { type: 'string', of: (c) => c.asset_class },
  id: { type: 'int', of: (c) => c.id },
  type: { type: 'string', of: (c) => c.type },
  name: { type: 'string', of: (c) => c.name },
  data_types: { type: 'string', of: (c) => c.data_types.join(',') },
  legacy: { type: 'int', of: (c) => (c.legacy ? 1 : 0) },
};

/** The table's place of each condition: Massive's own order (trades first, each group by id) breaks ties. */
const POSITION = new Map(CONDITIONS.map((c, i) => [c, i]));

/** A sort as a keyset ordering: its key, then the table's place, which no two conditions share. */
const ORDERINGS = Object.fromEntries(
  CONDITION_SORTS.map((sort) => [
    sort,
    {
      tag: `conditions:${sort}`,
      columns: [
        { column: sort, ...SORT_KEY[sort] },
        { column: 'position', type: 'int', of: (c: Condition) => POSITION.get(c)! },
      ],
    },
  ]),
) as unknown as Readonly<Record<ConditionSort, Ordering<Condition>>>;

type Key = readonly [string | number, number];
const keyOf = (sort: ConditionSort, c: Condition): Key => [SORT_KEY[sort].of(c), POSITION.get(c)!];
const compare = ([x, i]: Key, [y, j]: Key) => (x < y ? -1 : x > y ? 1 : i - j);

/**
 * The conditions `filter` selects, ascending by `sort` with ties in the table's order; `desc` is
 * that list reversed.
 */
export function conditionList(
  filter: ConditionFilter,
  sort: ConditionSort = 'asset_class',
  order: Direction = 'asc',
): Condition[] {
  const rows = CONDITIONS.filter(
    (c) =>
      (filter.assetClass === undefined || c.asset_class === filter.assetClass) &&
      (filter.dataType === undefined || c.data_types.includes(filter.dataType)) &&
      (filter.id === undefined || c.id === filter.id) &&
      (filter.sip === undefined || c.sip_mapping[filter.sip] !== undefined),
  ).sort((a, b) => compare(keyOf(sort, a), keyOf(sort, b)));
  return order === 'desc' ? rows.reverse() : rows;
}

/**
 * One keyset page of `conditionList`: the `first` conditions after the one `after` names (a cursor
 * of the same sort and order), as the stored lists page (db/keyset.ts), so a cursor holds a place in
 * the list, not an offset.
 */
export function conditionPage(
  filter: ConditionFilter,
  sort: ConditionSort,
  order: Direction,
  { first, after }: ForwardArgs,
): Page<Condition> {
  const ordering = ORDERINGS[sort];
  const rows = conditionList(filter, sort, order);
  let start = 0;
  if (after !== undefined) {
    const cursor = decodeCursor(ordering, order, after, 'cursor') as unknown as Key;
    const sign = order === 'asc' ? 1 : -1;
    start = rows.findIndex((c) => sign * compare(keyOf(sort, c), cursor) > 0);
    if (start < 0) start = rows.length;
  }
  const nodes = rows.slice(start, start + first);
  return {
    nodes,
    hasNextPage: start + first < rows.length,
    hasPreviousPage: false,
    cursorAt: (i) => encodeCursor(ordering, order, nodes[i]!),
  };
}
