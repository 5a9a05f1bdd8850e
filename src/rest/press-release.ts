import { pressReleaseAtPage, type PressRelease } from '../services/press-release.js';
import { holdRows } from '../context.js';
import { PRESS_RELEASE_FIELDS } from '../domain/records/press-release.js';
import { arr } from './json-schema.js';
import { recordSchema, recordShaper } from './record-table.js';
import { checkOrder, parseQuery, symbolList, timeBound, type ParamSpecs } from './params.js';
import { PAGE_PARAMS } from './page-number.js';
import { json, shapeRows, type Route } from './route.js';

/** The legacy press-release route, with the parameter names of docs/rest.md#parameters-per-route. */
export const PRESS_RELEASE_PARAMS = {
  tickers: {
    type: 'string',
    pattern: /^[A-Za-z0-9.,-]+$/,
    maxLength: 2100,
    // the legacy API names no filter here: the names clients of Massive and of this API's other routes send
    aliases: ['ticker', 'symbol', 'symbols'],
    description:
      'Only releases naming any of these tickers: a comma list of 1 to 100 symbols of A-Z 0-9 . - (case-insensitive).',
  },
  from: timeBound('start', 'Only releases published at or after this time.'),
  to: timeBound('end', 'Only releases published at or before this time.'),
  ...PAGE_PARAMS,
} as const satisfies ParamSpecs;

function contacts(value: unknown): { organization: string }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((c: unknown) => {
    const organization = (c as { organization?: unknown } | null)?.organization;
    return typeof organization === 'string' ? [{ organization }] : [];
  });
}

export const PRESS_RELEASE_SCHEMA = recordSchema(PRESS_RELEASE_FIELDS);

/** One legacy press-release record. */
export const pressReleaseRecord: (r: PressRelease) => Record<string, unknown> = recordShaper<PressRelease>(
  PRESS_RELEASE_FIELDS,
  { Tickers: (r) => r.tickers.map((t) => t.ticker), Contacts: (r) => contacts(r.contacts) },
);

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/streamhive/api/v1/data',
    access: 'pressReleases',
    async handle(ctx, url) {
      const p = parseQuery(PRESS_RELEASE_PARAMS, url.searchParams);
      await holdRows(ctx, 'PressRelease', p.page_size);
      checkOrder(p.from, p.to, url.searchParams);
      const filter = {
        tickers: p.tickers === undefined ? undefined : symbolList('tickers', p.tickers),
        from: p.from,
        to: p.to,
      };
      const { nodes, totalCount } = await pressReleaseAtPage(ctx.db, filter, { page: p.page, pageSize: p.page_size });
      return json(shapeRows(ctx, nodes, pressReleaseRecord), 200, { 'x-total-count': String(totalCount) });
    },
    doc: {
      summary: 'Press releases',
      description:
        'A bare JSON array of press releases, newest first by PublishTime (ties: newest record first). The array carries no total: ' +
        'a page shorter than page_size (or empty) is the last one; the X-Total-Count header counts every matching release. ' +
        'The request id is in the X-Request-Id header.',
      query: PRESS_RELEASE_PARAMS,
      response: arr(PRESS_RELEASE_SCHEMA),
    },
  },
];
