// Resource name -> its Importer, loaded on demand (src/ingest/resources/<noun>.ts exports `importer`).
import { IMPORT_RESOURCES, type Importer, type ImportResource } from './importer.js';

const MODULES: Record<ImportResource, string> = {
  securities: './resources/security.js',
  logos: './resources/logo.js',
  'balance-sheets': './resources/balance-sheet.js',
  fundamentals: './resources/fundamental.js',
  'press-releases': './resources/press-release.js',
  ratings: './resources/rating.js',
  'call-summaries': './resources/call-summary.js',
  news: './resources/news.js',
  trades: './resources/trade.js',
  quotes: './resources/quote.js',
};

export function isImportResource(name: string): name is ImportResource {
  return (IMPORT_RESOURCES as readonly string[]).includes(name);
}

export async function importerFor(resource: ImportResource): Promise<Importer<unknown>> {
  const module = (await import(MODULES[resource])) as { importer: Importer<unknown> };
  return module.importer;
}
