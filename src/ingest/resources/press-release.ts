// Press releases: one item of the bare array GET /streamhive/api/v1/data returns
// (src/rest/press-release.ts), PascalCase keys.
import { PRESS_RELEASE_FIELDS } from '../../domain/records/press-release.js';
import { PRESS_RELEASE_TOPIC } from '../../runtime/events.js';
import type { PublishingImporter } from '../importer.js';
import { pressReleasesByWireIds, writePressReleases, type PressReleaseInput } from '../../services/press-release.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

export function parsePressRelease(record: unknown): PressReleaseInput {
  return parseRecord(PRESS_RELEASE_FIELDS, f.record(record)) as PressReleaseInput;
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
