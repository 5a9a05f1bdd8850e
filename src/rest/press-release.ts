import { pressReleaseAtPage, type PressRelease } from '../services/press-release.js';
import { holdRows } from '../context.js';
import { arr, object, str, timestamp, type JsonSchema } from './json-schema.js';
import { checkOrder, parseQuery, symbolList, type ParamSpecs } from './params.js';
import { PAGE_PARAMS } from './page-number.js';
import { json, type Route } from './route.js';

/** The legacy press-release route, with the parameter names of docs/rest.md#parameters-per-route. */
export const PRESS_RELEASE_PARAMS = {
  tickers: {
    type: 'string',
    pattern: /^[A-Za-z0-9.,-]+$/,
    maxLength: 2100,
    description:
      'Only releases naming any of these tickers: a comma list of 1 to 100 symbols of A-Z 0-9 . - (case-insensitive).',
  },
  from: {
    type: 'string',
    format: 'date-time',
    description:
      'Only releases published at or after this time: ISO 8601, e.g. 2026-01-31T14:30:00Z or 2026-01-31 (UTC when no zone is given).',
  },
  to: {
    type: 'string',
    format: 'date-time',
    description:
      'Only releases published at or before this time: ISO 8601, as `from`; a bare date YYYY-MM-DD includes that whole day (UTC).',
  },
  ...PAGE_PARAMS,
} as const satisfies ParamSpecs;

/** An upper bound given as a bare date covers that whole day: its last millisecond. */
function endOf(to: Date | undefined, raw: string | null): Date | undefined {
  return to && raw && /^\d{4}-\d{2}-\d{2}$/.test(raw) ? new Date(to.getTime() + 86_400_000 - 1) : to;
}

/** The strings of a JSON array column; anything else in it is skipped (as in GraphQL). */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function contacts(value: unknown): { organization: string }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((c: unknown) => {
    const organization = (c as { organization?: unknown } | null)?.organization;
    return typeof organization === 'string' ? [{ organization }] : [];
  });
}

const anyJson = (description: string): JsonSchema => ({ description });

export const PRESS_RELEASE_SECURITY_SCHEMA = object({
  figi: str('FIGI of the listing.'),
  isin: str('ISIN.'),
  name: str('Security name.'),
  symbol: str('Ticker symbol.'),
  mic_code: str('ISO 10383 market identifier code of the exchange.'),
  figi_composite: str('Composite FIGI.'),
  figi_share_class: str('Share-class FIGI; may be the empty string.'),
  vendorx_exch_code: str("The exchange's code at data vendor X."),
});

/** The legacy press-release record, keys as the legacy API spells them (PascalCase); every key always present. */
export const PRESS_RELEASE_SCHEMA = object({
  WireDataID: str('Id of the release in the wire feed.'),
  Vendor: str('The wire vendor.'),
  ReleaseID: str('Release id, kept exactly as given: a URL, or a stringified map.'),
  ExternalID: str("The vendor's external id."),
  TransmissionID: str('Transmission id.'),
  Headline: str('Headline.'),
  SubHeadline: str('Sub-headline; may be the empty string.'),
  Dateline: str('Dateline: place, date and wire.'),
  Language: str('Language code, e.g. en.'),
  PublishTime: timestamp('When the release was published (ISO 8601 UTC).'),
  Source: str('Who issued the release.'),
  SourceURL: str('Address of the release at its source.'),
  Summary: str('Short summary.'),
  BodyHTML: str('Full text as HTML.'),
  BodyText: str('Full text as plain text.'),
  Categories: anyJson(
    'Categories as the feed sent them (an array of strings in practice); null when the feed sent none.',
  ),
  Keywords: arr(str(), 'Keywords.'),
  ExternalLinks: arr(str(), 'Links the release points to.'),
  Tickers: arr(str(), 'Ticker symbols the release names, in feed order.'),
  Exchanges: arr(str(), 'Exchange-qualified tickers, e.g. NYSE:ABC.'),
  Securities: arr(PRESS_RELEASE_SECURITY_SCHEMA, 'The securities the release is about, in feed order.'),
  Contacts: arr(object({ organization: str('The organization to contact.') }), 'Contacts named by the release.'),
  MediaAssets: anyJson('Media assets (images, video) as the feed sent them; null when none.'),
  Raw: { type: 'object', description: 'The vendor record as received (its contents are not specified).' },
  CreatedAt: timestamp('When the record was created (ISO 8601 UTC).'),
  UpdatedAt: timestamp('When the record last changed (ISO 8601 UTC).'),
});

/** One legacy press-release record. */
export function pressReleaseRecord(r: PressRelease): Record<string, unknown> {
  return {
    WireDataID: r.wireDataId,
    Vendor: r.vendor,
    ReleaseID: r.releaseId,
    ExternalID: r.externalId,
    TransmissionID: r.transmissionId,
    Headline: r.headline,
    SubHeadline: r.subHeadline,
    Dateline: r.dateline,
    Language: r.language,
    PublishTime: r.publishTime.toISOString(),
    Source: r.source,
    SourceURL: r.sourceUrl,
    Summary: r.summary,
    BodyHTML: r.bodyHtml,
    BodyText: r.bodyText,
    Categories: r.categories ?? null,
    Keywords: strings(r.keywords),
    ExternalLinks: strings(r.externalLinks),
    Tickers: r.tickers.map((t) => t.ticker),
    Exchanges: strings(r.exchanges),
    Securities: r.securities.map((s) => ({
      figi: s.figi,
      isin: s.isin,
      name: s.name,
      symbol: s.symbol,
      mic_code: s.micCode,
      figi_composite: s.figiComposite,
      figi_share_class: s.figiShareClass,
      vendorx_exch_code: s.vendorxExchCode,
    })),
    Contacts: contacts(r.contacts),
    MediaAssets: r.mediaAssets ?? null,
    Raw: r.raw !== null && typeof r.raw === 'object' && !Array.isArray(r.raw) ? r.raw : {},
    CreatedAt: r.createdAt.toISOString(),
    UpdatedAt: r.updatedAt.toISOString(),
  };
}

export const pressReleaseRoutes: Route[] = [
  {
    method: 'GET',
    path: '/streamhive/api/v1/data',
    access: 'pressReleases',
    async handle(ctx, url) {
      const p = parseQuery(PRESS_RELEASE_PARAMS, url.searchParams);
      await holdRows(ctx, 'PressRelease', p.page_size);
      const to = endOf(p.to, url.searchParams.get('to'));
      checkOrder(p.from, to, url.searchParams);
      const filter = {
        tickers: p.tickers === undefined ? undefined : symbolList('tickers', p.tickers),
        from: p.from,
        to,
      };
      const { nodes, totalCount } = await pressReleaseAtPage(ctx.db, filter, { page: p.page, pageSize: p.page_size });
      return json(nodes.map(pressReleaseRecord), 200, { 'x-total-count': String(totalCount) });
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
