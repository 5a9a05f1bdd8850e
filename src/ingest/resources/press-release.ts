// Press releases: one item of the bare array GET /streamhive/api/v1/data returns
// (src/rest/press-release.ts), PascalCase keys.
import type { Prisma } from '../../../generated/prisma/client.js';
import type { TextKind } from '../../domain/limits.js';
import { PRESS_RELEASE_TOPIC } from '../../runtime/events.js';
import type { PublishingImporter } from '../importer.js';
import { pressReleasesByWireIds, writePressReleases, type PressReleaseInput } from '../../services/press-release.js';
import * as f from '../record-fields.js';

/** The text fields: column, record key and kind (ReleaseID is a URL, or a stringified map holding one). */
const TEXT = {
  vendor: ['Vendor', 'short'],
  releaseId: ['ReleaseID', 'url'],
  externalId: ['ExternalID', 'short'],
  transmissionId: ['TransmissionID', 'short'],
  headline: ['Headline', 'short'],
  subHeadline: ['SubHeadline', 'long'],
  dateline: ['Dateline', 'short'],
  language: ['Language', 'short'],
  source: ['Source', 'short'],
  sourceUrl: ['SourceURL', 'url'],
  summary: ['Summary', 'long'],
  bodyHtml: ['BodyHTML', 'long'],
  bodyText: ['BodyText', 'long'],
} as const satisfies Record<string, readonly [string, TextKind]>;

export function parsePressRelease(record: unknown): PressReleaseInput {
  const rec = f.record(record);
  const text = Object.fromEntries(
    Object.entries(TEXT).map(([column, [key, kind]]) => [column, f.string(rec[key], key, kind)]),
  ) as Record<keyof typeof TEXT, string>;
  return {
    wireDataId: f.nonEmpty(rec.WireDataID, 'WireDataID'),
    ...text,
    publishTime: f.timestamp(rec.PublishTime, 'PublishTime'),
    categories: f.anyJson(rec.Categories, 'Categories') as Prisma.JsonValue,
    keywords: f.strings(rec.Keywords, 'Keywords'),
    externalLinks: f.strings(rec.ExternalLinks, 'ExternalLinks', 'url'),
    tickers: f.symbols(rec.Tickers, 'Tickers'),
    exchanges: f.strings(rec.Exchanges, 'Exchanges'),
    securities: f.objects(rec.Securities, 'Securities', (s, at) => ({
      figi: f.string(s.figi, `${at}.figi`),
      isin: f.string(s.isin, `${at}.isin`),
      name: f.string(s.name, `${at}.name`),
      symbol: f.string(s.symbol, `${at}.symbol`),
      micCode: f.string(s.mic_code, `${at}.mic_code`),
      figiComposite: f.string(s.figi_composite, `${at}.figi_composite`),
      figiShareClass: f.string(s.figi_share_class, `${at}.figi_share_class`),
      vendorxExchCode: f.string(s.vendorx_exch_code, `${at}.vendorx_exch_code`),
    })),
    // the route serves `{ organization }` of each contact, so that is what is kept
    contacts: f.objects(rec.Contacts, 'Contacts', (c, at) => ({
      organization: f.string(c.organization, `${at}.organization`),
    })),
    mediaAssets: f.anyJson(rec.MediaAssets, 'MediaAssets') as Prisma.JsonValue,
    raw: (rec.Raw === undefined || rec.Raw === null
      ? {}
      : f.anyJson(f.object(rec.Raw, 'Raw'), 'Raw')) as Prisma.JsonObject,
    createdAt: f.optTimestamp(rec.CreatedAt, 'CreatedAt'),
    updatedAt: f.optTimestamp(rec.UpdatedAt, 'UpdatedAt'),
  };
}

export const importer: PublishingImporter<PressReleaseInput> = {
  resource: 'press-releases',
  // the route answers a bare array
  recordsOf: (body) => (Array.isArray(body) ? body : null),
  parse: parsePressRelease,
  key: (row) => row.wireDataId,
  write: writePressReleases,
  highWater: (row) => row.publishTime.toISOString(),
  // one topic for all: a subscriber asks for any of several tickers, or for every release
  eventsOf: async (db, rows) =>
    (
      await pressReleasesByWireIds(
        db,
        rows.map((r) => r.wireDataId),
      )
    ).map((r) => [PRESS_RELEASE_TOPIC, r] as const),
};
