import type { ImportResource } from '../../src/ingest/importer.js';
import { IMPORTED } from '../../src/resources/index.js';

/** Trades and quotes (`ticks` in their manifests) name their symbol in the route's path, not in the records. */
export const bodiesLackSymbol = (resource: ImportResource): boolean =>
  IMPORTED.find((r) => r.name === resource)?.sync.pages === 'ticks';
