import { exposeRecordFields } from './record-fields.js';
import { EXCHANGE_FIELDS } from '../domain/records/exchange.js';
import { builder } from '../builder.js';
import { ASSET_CLASSES, LOCALES } from '../domain/records/exchange.js';
import { exchangeList, MAX_EXCHANGES, type AssetClass, type Locale } from '../services/exchange.js';
import { intNodeId, listOf } from './common.js';

/** Massive's values as GraphQL enum values: `stocks` is STOCKS. */
const enumValues = <V extends string>(values: readonly V[]) =>
  Object.fromEntries(values.map((value) => [value.toUpperCase(), { value }])) as Record<Uppercase<V>, { value: V }>;

export const AssetClassEnum = builder.enumType('AssetClass', {
  description: 'A group of similar instruments (REST `asset_class`, in lower case).',
  values: enumValues<AssetClass>(ASSET_CLASSES),
});

export const LocaleEnum = builder.enumType('Locale', {
  description: 'Where a venue is (REST `locale`, in lower case).',
  values: enumValues<Locale>(LOCALES),
});

export const Exchange = builder.prismaNode('Exchange', {
  description:
    "A venue that reports trades and quotes: an exchange, a trade reporting facility or a SIP, as Massive's GET /v3/reference/exchanges lists it. Optional fields are null where Massive's record leaves the key out.",
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'Exchange') }),
  fields: (t) => ({
    exchangeId: t.exposeInt('id', {
      description:
        "Massive's id of the exchange (REST field `id`): `Trade.exchange`, `Quote.askExchange` and `Quote.bidExchange`.",
    }),
    ...exposeRecordFields(t, EXCHANGE_FIELDS),
    assetClass: t.expose('assetClass', { type: AssetClassEnum, description: 'The group of instruments it trades.' }),
    locale: t.expose('locale', { type: LocaleEnum, description: 'Where it is.' }),
  }),
});

builder.queryField('exchanges', (t) =>
  t.field({
    authScopes: { entitled: 'exchanges' },
    nullable: true,
    type: [Exchange],
    description: `The exchanges, by Massive's id: the whole list at once, without pages, at most ${MAX_EXCHANGES} (REST GET /stocks/v3/reference/exchanges).`,
    extensions: listOf(MAX_EXCHANGES),
    args: {
      assetClass: t.arg({ type: AssetClassEnum, description: 'Only the exchanges of this asset class.' }),
      locale: t.arg({ type: LocaleEnum, description: 'Only the exchanges of this locale.' }),
    },
    resolve: (_root, args, ctx) =>
      exchangeList(ctx.db, { assetClass: args.assetClass ?? undefined, locale: args.locale ?? undefined }),
  }),
);
