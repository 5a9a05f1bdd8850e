// The condition codes as Massive's GET /v3/reference/conditions selects and orders them, read from
// domain/conditions.ts (no table): one selection for the REST route and the GraphQL field.
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

const SORT_KEY: Readonly<Record<ConditionSort, (c: Condition) => string | number>> = {
  asset_class: (c) => c.asset_class,
  id: (c) => c.id,
  type: (c) => c.type,
  name: (c) => c.name,
  data_types: (c) => c.data_types.join(','),
  legacy: (c) => (c.legacy ? 1 : 0),
};

/** The table's place of each condition: Massive's own order (trades first, each group by id) breaks ties. */
const POSITION = new Map(CONDITIONS.map((c, i) => [c, i]));

/**
 * The conditions `filter` selects, ascending by `sort` with ties in the table's order; `desc` is
 * that list reversed, so a page boundary falls between the same two rows either way.
 */
export function conditionList(
  filter: ConditionFilter,
  sort: ConditionSort = 'asset_class',
  order: 'asc' | 'desc' = 'asc',
): Condition[] {
  const key = SORT_KEY[sort];
  const rows = CONDITIONS.filter(
    (c) =>
      (filter.assetClass === undefined || c.asset_class === filter.assetClass) &&
      (filter.dataType === undefined || c.data_types.includes(filter.dataType)) &&
      (filter.id === undefined || c.id === filter.id) &&
      (filter.sip === undefined || c.sip_mapping[filter.sip] !== undefined),
  ).sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    return x < y ? -1 : x > y ? 1 : POSITION.get(a)! - POSITION.get(b)!;
  });
  return order === 'desc' ? rows.reverse() : rows;
}
