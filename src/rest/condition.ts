import { holdRows } from '../context.js';
import { lastCursor, type Direction } from '../db/keyset.js';
import {
  CONDITION_ASSET_CLASSES,
  CONDITION_DATA_TYPES,
  CONDITION_SIPS,
  CONDITION_SORTS,
  conditionPage,
  MAX_CONDITIONS,
  type Condition,
  type ConditionAssetClass,
  type ConditionDataType,
  type ConditionSip,
  type ConditionSort,
} from '../services/condition.js';
import { arr, bool, int, object, str, type JsonSchema } from './json-schema.js';
import { nextUrl, readCursorRequest, withCursorParam } from './next-url.js';
import type { ParamSpecs } from './params.js';
import { json, shapeRows, type Route } from './route.js';

const PAGE = { default: 10, max: 1_000 } as const;

/** Massive's parameters of GET /v3/reference/conditions: docs/rest.md#parameters-per-route. */
export const CONDITION_PARAMS = {
  asset_class: {
    type: 'string',
    enum: CONDITION_ASSET_CLASSES,
    description: 'Only the conditions of this asset class; only stocks has conditions here, the others answer none.',
  },
  data_type: {
    type: 'string',
    enum: CONDITION_DATA_TYPES,
    description: 'Only the conditions of this data type: trade, bbo (a venue quote) or nbbo (the national best).',
  },
  id: {
    type: 'integer',
    minimum: 0,
    description: 'Only the conditions with this id (an id names one condition per data type).',
  },
  sip: {
    type: 'string',
    enum: CONDITION_SIPS,
    description: 'Only the conditions this SIP has a code for (in sip_mapping).',
  },
  order: { type: 'string', enum: ['asc', 'desc'], default: 'asc', description: 'The direction of `sort`.' },
  limit: {
    type: 'integer',
    minimum: 1,
    maximum: PAGE.max,
    default: PAGE.default,
    pageSize: true,
    description: `Results per page, 1 to ${PAGE.max}.`,
  },
  sort: {
    type: 'string',
    enum: CONDITION_SORTS,
    default: 'asset_class',
    description: "The field to order by; ties keep Massive's order (trade conditions first, each group by id).",
  },
} as const satisfies ParamSpecs;

const UPDATE_RULE = object({
  updates_high_low: bool('Whether a trade with this condition updates the high and low.'),
  updates_open_close: bool('Whether it updates the open and close.'),
  updates_volume: bool('Whether it counts in the volume.'),
});

/** Massive's condition record; `exchange`, `legacy` (true only) and `update_rules` are absent where Massive leaves them out. */
export const CONDITION_SCHEMA: JsonSchema = object(
  {
    asset_class: { type: 'string', enum: [...CONDITION_ASSET_CLASSES] },
    data_types: arr({ type: 'string', enum: [...CONDITION_DATA_TYPES] }, 'The data types the condition applies to.'),
    exchange: int(
      'The exchange whose prints alone carry this condition, where the SIP code means it on that venue only.',
    ),
    id: int("Massive's id: unique per data type."),
    legacy: { const: true, description: "From an old version of the SIPs' specifications; absent when false." },
    name: str(),
    sip_mapping: object(
      { CTA: str(), FINRA_TDDS: str(), OPRA: str(), UTP: str() },
      [],
      'The code each SIP sends for this condition.',
    ),
    type: str('The group of related conditions: sale_condition, quote_condition, ...'),
    update_rules: object(
      { consolidated: UPDATE_RULE, market_center: UPDATE_RULE },
      undefined,
      'For trade conditions that bear on bars: what a trade may update, all venues together and per venue.',
    ),
  },
  ['asset_class', 'data_types', 'id', 'name', 'sip_mapping', 'type'],
);

/** Massive's condition record, its keys in Massive's (alphabetical) order, the absent ones left out. */
export function conditionRecord(c: Condition): Record<string, unknown> {
  return {
    asset_class: c.asset_class,
    data_types: c.data_types,
    ...(c.exchange === undefined ? {} : { exchange: c.exchange }),
    id: c.id,
    ...(c.legacy ? { legacy: true } : {}),
    name: c.name,
    sip_mapping: Object.fromEntries(Object.entries(c.sip_mapping).sort(([a], [b]) => (a < b ? -1 : 1))),
    type: c.type,
    ...(c.update_rules ? { update_rules: c.update_rules } : {}),
  };
}

const ROUTE = 'conditions';

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/v3/reference/conditions',
    access: 'conditions',
    async handle(ctx, url) {
      const { params: p, raw, after } = readCursorRequest(ctx, url, ROUTE, CONDITION_PARAMS);
      await holdRows(ctx, 'Condition', Math.min(p.limit, MAX_CONDITIONS));
      const page = conditionPage(
        {
          assetClass: p.asset_class as ConditionAssetClass | undefined,
          dataType: p.data_type as ConditionDataType | undefined,
          id: p.id,
          sip: p.sip as ConditionSip | undefined,
        },
        p.sort as ConditionSort,
        p.order as Direction,
        { first: p.limit, after },
      );
      const next = nextUrl(ctx, url, ROUTE, raw, lastCursor(page), page.hasNextPage);
      return json({
        count: page.nodes.length,
        ...(next ? { next_url: next } : {}),
        request_id: ctx.requestId,
        results: shapeRows(ctx, page.nodes, conditionRecord),
        status: 'OK',
      });
    },
    doc: {
      summary: 'Condition codes',
      description:
        "The trade and quote conditions, with the update rules that decide which trades count in a bar, as Massive's GET /v3/reference/conditions answers them; `next_url` while more remain.",
      query: withCursorParam(CONDITION_PARAMS),
      response: object(
        {
          count: int('How many conditions `results` holds.'),
          next_url: str('Absolute URL of the next page (its cursor carries the filters); absent on the last page.'),
          request_id: str('This request; also the X-Request-Id header.'),
          results: arr(CONDITION_SCHEMA),
          status: { const: 'OK' },
        },
        ['count', 'request_id', 'results', 'status'],
      ),
    },
  },
];
