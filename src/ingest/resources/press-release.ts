// Press releases (spec 2.6): one item of the bare array GET /streamhive/api/v1/data returns
// (src/rest/press-release.ts), PascalCase keys.
import type { Prisma } from '../../../generated/prisma/client.js';
import { PRESS_RELEASE_TOPIC } from '../../events.js';
import type { PublishingImporter } from '../import.js';
import { pressReleasesByWireIds, writePressReleases, type PressReleaseInput } from '../../services/press-release.js';
import * as f from '../record-fields.js';

const TEXT = {
  vendor: 'Vendor',
  releaseId: 'ReleaseID',
  externalId: 'ExternalID',
  transmissionId: 'TransmissionID',
  headline: 'Headline',
  subHeadline: 'SubHeadline',
  dateline: 'Dateline',
  language: 'Language',
  source: 'Source',
  sourceUrl: 'SourceURL',
  summary: 'Summary',
  bodyHtml: 'BodyHTML',
  bodyText: 'BodyText',
} as const;

export function parsePressRelease(record: unknown): PressReleaseInput {
  const rec = f.record(record);
  const text = Object.fromEntries(Object.entries(TEXT).map(([column, key]) => [column, f.string(rec[key], key)])) as Record<keyof typeof TEXT, string>;
  return {
    wireDataId: f.nonEmpty(rec.WireDataID, 'WireDataID'),
    ...text,
    publishTime: f.timestamp(rec.PublishTime, 'PublishTime'),
    categories: f.anyJson(rec.Categories) as Prisma.JsonValue,
    keywords: f.strings(rec.Keywords, 'Keywords'),
    externalLinks: f.strings(rec.ExternalLinks, 'ExternalLinks'),
    tickers: f.strings(rec.Tickers, 'Tickers'),
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
    contacts: f.objects(rec.Contacts, 'Contacts', (c, at) => ({ organization: f.string(c.organization, `${at}.organization`) })),
    mediaAssets: f.anyJson(rec.MediaAssets) as Prisma.JsonValue,
    raw: (rec.Raw === undefined || rec.Raw === null ? {} : f.object(rec.Raw, 'Raw')) as Prisma.JsonObject,
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
  eventsOf: async (db, rows) => (await pressReleasesByWireIds(db, rows.map((r) => r.wireDataId))).map((r) => [PRESS_RELEASE_TOPIC, r] as const),
};
