// Logos: one item of `Logos`, as GET /api/v1/logos returns it (src/rest/logo.ts).
import type { Importer } from '../importer.js';
import { writeLogos, type LogoInput } from '../../services/logo.js';
import * as f from '../record-fields.js';
import { parseField, parseRecord } from '../record-table.js';
import { LOGO_FIELDS, LOGOS_FIELD } from '../../domain/records/logo.js';

/** `logos.png` is read as a path (a `logos` object holding `png`); a flat `"logos.png"` key is taken too. */
function logos(rec: f.Rec): f.Rec {
  const nested = rec.logos;
  if (typeof nested === 'object' && nested !== null && !Array.isArray(nested)) return rec;
  const flat = Object.fromEntries(LOGOS_FIELD.fields.map(({ key }) => [key, rec[`logos.${key}`]]));
  return { logos: flat };
}

export function parseLogo(record: unknown): LogoInput {
  const rec = f.record(record);
  const images = logos(rec);
  // a record without its images is refused for them first, whatever else it lacks
  for (const { key } of LOGOS_FIELD.fields) f.object((images.logos as f.Rec)[key], `logos.${key}`);
  return parseRecord(LOGO_FIELDS, rec, { logos: () => parseField(LOGOS_FIELD, images) }) as LogoInput;
}

export const importer: Importer<LogoInput> = {
  resource: 'logos',
  recordsOf: (body) => f.listIn(body, 'Logos'),
  parse: parseLogo,
  key: (row) => row.symbol,
  write: writeLogos,
  highWater: (row) => f.isoOf(row.updatedAt),
};
