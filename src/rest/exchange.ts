import { holdRows } from '../context.js';
import {
  ASSET_CLASSES,
  exchangeList,
  LOCALES,
  MAX_EXCHANGES,
  type AssetClass,
  type Exchange,
  type Locale,
} from '../services/exchange.js';
import { arr, int, object, str, type JsonSchema } from './json-schema.js';
import { parseQuery, type ParamSpecs } from './params.js';
import { json, type Route } from './route.js';

/** `asset_class`, `locale`, as Massive's GET /v3/reference/exchanges takes them: docs/rest.md#parameters-per-route. */
export const EXCHANGE_PARAMS = {
  asset_class: { type: 'string', enum: ASSET_CLASSES, description: 'Only the exchanges of this asset class.' },
  locale: { type: 'string', enum: LOCALES, description: 'Only the exchanges of this locale.' },
} as const satisfies ParamSpecs;

/** The keys Massive leaves out of a record that has no value for them. */
const OPTIONAL_KEYS = ['acronym', 'mic', 'operating_mic', 'participant_id', 'url'] as const;

/** Massive's exchange record; the optional keys are absent (never null) where the exchange has none. */
export const EXCHANGE_SCHEMA: JsonSchema = object(
  {
    acronym: str('The abbreviation the exchange is commonly known by.'),
    asset_class: { type: 'string', enum: [...ASSET_CLASSES], description: 'The group of instruments it trades.' },
    id: int("Massive's identifier of the exchange: the `exchange` of a trade, the `ask_exchange` of a quote."),
    locale: { type: 'string', enum: [...LOCALES], description: 'Where it is.' },
    mic: str('Its ISO 10383 Market Identifier Code.'),
    name: str('Its name.'),
    operating_mic: str('The MIC of the entity that operates it.'),
    participant_id: str('The id the SIPs give it.'),
    type: str('What kind of venue it is: exchange, TRF (trade reporting facility), SIP, or ORF.'),
    url: str('Its web site.'),
  },
  ['asset_class', 'id', 'locale', 'name', 'type'],
);

/** Massive's exchange record, its keys as Massive spells and orders them. */
export function exchangeRecord(e: Exchange): Record<string, unknown> {
  const optional: Record<(typeof OPTIONAL_KEYS)[number], string | null> = {
    acronym: e.acronym,
    mic: e.mic,
    operating_mic: e.operatingMic,
    participant_id: e.participantId,
    url: e.url,
  };
  const present = (key: (typeof OPTIONAL_KEYS)[number]) => (optional[key] === null ? {} : { [key]: optional[key] });
  return {
    ...present('acronym'),
    asset_class: e.assetClass,
    id: e.id,
    locale: e.locale,
    ...present('mic'),
    name: e.name,
    ...present('operating_mic'),
    ...present('participant_id'),
    type: e.type,
    ...present('url'),
  };
}

export const exchangeRoutes: Route[] = [
  {
    method: 'GET',
    path: '/stocks/v3/reference/exchanges',
    access: 'exchanges',
    async handle(ctx, url) {
      const p = parseQuery(EXCHANGE_PARAMS, url.searchParams);
      await holdRows(ctx, 'Exchange', MAX_EXCHANGES);
      const rows = await exchangeList(ctx.db, {
        assetClass: p.asset_class as AssetClass | undefined,
        locale: p.locale as Locale | undefined,
      });
      return json({ count: rows.length, request_id: ctx.requestId, results: rows.map(exchangeRecord), status: 'OK' });
    },
    doc: {
      summary: 'Exchanges',
      description: `The exchanges, trade reporting facilities and SIPs, by Massive's id, as Massive's GET /v3/reference/exchanges answers them: the whole list at once, without pages (at most ${MAX_EXCHANGES}).`,
      query: EXCHANGE_PARAMS,
      response: object({
        count: int('How many exchanges `results` holds.'),
        request_id: str('This request; also the X-Request-Id header.'),
        results: arr(EXCHANGE_SCHEMA),
        status: { const: 'OK' },
      }),
    },
  },
];
