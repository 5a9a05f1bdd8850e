// Query.conditions: the trade and quote condition codes (services/condition.ts), the GraphQL twin
// of GET /stocks/v3/reference/conditions (rest/condition.ts). A list answered whole, as exchanges.
import { builder } from '../builder.js';
import type { ConditionType, UpdateRule } from '../domain/conditions.js';
import {
  CONDITION_DATA_TYPES,
  CONDITION_SIPS,
  conditionList,
  MAX_CONDITIONS,
  type Condition,
  type ConditionDataType,
  type ConditionSip,
} from '../services/condition.js';
import { listOf } from './common.js';
import { AssetClassEnum } from './exchange.js';

/** Massive's values as GraphQL enum values: `sale_condition` is SALE_CONDITION. */
const enumValues = <V extends string>(values: readonly V[]) =>
  Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as Record<Uppercase<V>, { value: V }>;

// a record, so that a type added to domain/conditions.ts without its enum value fails to compile
const CONDITION_TYPES = Object.keys({
  sale_condition: 1,
  quote_condition: 1,
  sip_generated_flag: 1,
  financial_status_indicator: 1,
  short_sale_restriction_indicator: 1,
  settlement_condition: 1,
  market_condition: 1,
  trade_thru_exempt: 1,
} satisfies Record<ConditionType, 1>) as ConditionType[];

const ConditionTypeEnum = builder.enumType('ConditionType', {
  description: 'A group of related conditions (REST `type`, in lower case).',
  values: enumValues(CONDITION_TYPES),
});

const ConditionDataTypeEnum = builder.enumType('ConditionDataType', {
  description: 'What a condition is read on: TRADE, BBO (a venue quote) or NBBO (the national best quote).',
  values: enumValues<ConditionDataType>(CONDITION_DATA_TYPES),
});

const ConditionSipEnum = builder.enumType('ConditionSip', {
  description: 'A securities information processor: CTA (NYSE-listed), UTP (Nasdaq-listed), OPRA (options).',
  values: enumValues<ConditionSip>(CONDITION_SIPS),
});

const SipMapping = builder.objectRef<Condition['sip_mapping']>('ConditionSipMapping').implement({
  description: 'The code each SIP sends for a condition; null where that SIP has none (REST `sip_mapping`).',
  fields: (t) => ({
    cta: t.string({ nullable: true, description: 'The CTA plan (NYSE-listed securities).', resolve: (m) => m.CTA }),
    utp: t.string({ nullable: true, description: 'The UTP plan (Nasdaq-listed securities).', resolve: (m) => m.UTP }),
    opra: t.string({
      nullable: true,
      description: 'OPRA (options); no stock condition has one.',
      resolve: (m) => m.OPRA,
    }),
    finraTdds: t.string({
      nullable: true,
      description: "FINRA's trade reporting facilities (REST `FINRA_TDDS`).",
      resolve: (m) => m.FINRA_TDDS,
    }),
  }),
});

const UpdateRuleRef = builder.objectRef<UpdateRule>('ConditionUpdateRule').implement({
  description: 'What a trade carrying the condition may update in a bar.',
  fields: (t) => ({
    updatesHighLow: t.boolean({ description: 'The high and low.', resolve: (r) => r.updates_high_low }),
    updatesOpenClose: t.boolean({ description: 'The open and close.', resolve: (r) => r.updates_open_close }),
    updatesVolume: t.boolean({ description: 'The volume.', resolve: (r) => r.updates_volume }),
  }),
});

const UpdateRules = builder.objectRef<NonNullable<Condition['update_rules']>>('ConditionUpdateRules').implement({
  description: 'How a trade condition bears on bars (REST `update_rules`).',
  fields: (t) => ({
    consolidated: t.field({
      type: UpdateRuleRef,
      description: 'All venues together: the rule consolidated bars (Security.bars) follow.',
      resolve: (r) => r.consolidated,
    }),
    marketCenter: t.field({
      type: UpdateRuleRef,
      description: "One venue's own bars.",
      resolve: (r) => r.market_center,
    }),
  }),
});

export const ConditionRef = builder.objectRef<Condition>('Condition').implement({
  description:
    "A trade or quote condition code as Massive's GET /v3/reference/conditions lists it: what `Trade.conditions` and `Quote.conditions` hold, and which trades count in a bar.",
  fields: (t) => ({
    conditionId: t.exposeInt('id', {
      description:
        "Massive's id (REST `id`): unique per data type, so a trade's 12 and a quote's 12 are different conditions.",
    }),
    type: t.field({ type: ConditionTypeEnum, description: 'Its group of related conditions.', resolve: (c) => c.type }),
    name: t.exposeString('name', { description: "Massive's name of the condition." }),
    assetClass: t.field({ type: AssetClassEnum, description: 'Always STOCKS here.', resolve: (c) => c.asset_class }),
    dataTypes: t.field({
      type: [ConditionDataTypeEnum],
      description: 'The data types it applies to.',
      extensions: listOf(CONDITION_DATA_TYPES.length),
      resolve: (c) => c.data_types,
    }),
    sipMapping: t.field({
      type: SipMapping,
      description: 'The code each SIP sends for it.',
      resolve: (c) => c.sip_mapping,
    }),
    legacy: t.exposeBoolean('legacy', {
      description: "From an old version of the SIPs' specifications, no longer sent.",
    }),
    exchange: t.int({
      nullable: true,
      description:
        'The exchange (Exchange.exchangeId) whose prints alone carry it, where its SIP code means it there only.',
      resolve: (c) => c.exchange,
    }),
    updateRules: t.field({
      type: UpdateRules,
      nullable: true,
      description: 'Only on trade conditions that bear on bars.',
      resolve: (c) => c.update_rules,
    }),
  }),
});

builder.queryField('conditions', (t) =>
  t.field({
    authScopes: { entitled: 'conditions' },
    nullable: true,
    type: [ConditionRef],
    description: `The stock trade and quote condition codes, trade conditions first, each group by id: the whole list at once, without pages, at most ${MAX_CONDITIONS} (REST GET /stocks/v3/reference/conditions).`,
    extensions: listOf(MAX_CONDITIONS),
    args: {
      dataType: t.arg({ type: ConditionDataTypeEnum, description: 'Only the conditions of this data type.' }),
      sip: t.arg({ type: ConditionSipEnum, description: 'Only the conditions this SIP has a code for.' }),
    },
    resolve: (_root, args) => conditionList({ dataType: args.dataType ?? undefined, sip: args.sip ?? undefined }),
  }),
);
