// Logos: one item of `Logos`, as GET /api/v1/logos returns it (src/rest/logo.ts).
import type { Importer } from '../importer.js';
import { writeLogos, type LogoInput } from '../../services/logo.js';
import * as f from '../record-fields.js';

/** `logos.png` is read as a path (a `logos` object holding `png`); a flat `"logos.png"` key is taken too. */
function image(rec: f.Rec, name: 'png' | 'svg' | 'thumbnail'): f.Rec {
  const nested = rec.logos;
  const value =
    typeof nested === 'object' && nested !== null && !Array.isArray(nested)
      ? (nested as f.Rec)[name]
      : rec[`logos.${name}`];
  return f.object(value, `logos.${name}`);
}

export function parseLogo(record: unknown): LogoInput {
  const rec = f.record(record);
  const png = image(rec, 'png');
  const svg = image(rec, 'svg');
  const thumbnail = image(rec, 'thumbnail');
  return {
    symbol: f.symbol(rec.symbol, 'symbol'),
    companyName: f.string(rec.company_name, 'company_name'),
    pngUrl: f.string(png.url, 'logos.png.url', 'url'),
    pngHeight: f.integer(png.height, 'logos.png.height', 0),
    pngWidth: f.integer(png.width, 'logos.png.width', 0),
    pngSizeKb: f.number(png.size_kb, 'logos.png.size_kb'),
    svgUrl: f.string(svg.url, 'logos.svg.url', 'url'),
    svgSizeKb: f.number(svg.size_kb, 'logos.svg.size_kb'),
    thumbnailUrl: f.string(thumbnail.url, 'logos.thumbnail.url', 'url'),
    thumbnailSizeKb: f.number(thumbnail.size_kb, 'logos.thumbnail.size_kb'),
    createdAt: f.optTimestamp(rec.created_at, 'created_at'),
    updatedAt: f.optTimestamp(rec.updated_at, 'updated_at'),
    securityInfo: f.objects(rec.security_info, 'security_info', (i, at) => ({
      symbol: f.string(i.symbol, `${at}.symbol`),
      name: f.string(i.name, `${at}.name`),
      mic: f.string(i.MIC, `${at}.MIC`),
      figi: f.string(i.figi, `${at}.figi`),
      exchCode: f.string(i.exch_code, `${at}.exch_code`),
      compositeFigi: f.string(i.composite_figi, `${at}.composite_figi`),
      shareClassFigi: f.string(i.share_class_figi, `${at}.share_class_figi`),
      marketSector: f.string(i.market_sector, `${at}.market_sector`),
    })),
  };
}

export const importer: Importer<LogoInput> = {
  resource: 'logos',
  recordsOf: (body) => f.listIn(body, 'Logos'),
  parse: parseLogo,
  key: (row) => row.symbol,
  write: writeLogos,
  highWater: (row) => f.isoOf(row.updatedAt),
};
