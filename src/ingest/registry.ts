// Resource name -> its Importer, loaded on demand: the module named by the resource's noun
// (ingest/resources/<noun>.ts exports `importer`), as its manifest in resources/ gives it.
import { IMPORTED } from '../resources/index.js';
import { IMPORT_RESOURCES, type Importer, type ImportResource } from './importer.js';

export function isImportResource(name: string): name is ImportResource {
  return (IMPORT_RESOURCES as readonly string[]).includes(name);
}

export async function importerFor(resource: ImportResource): Promise<Importer<unknown>> {
  const noun = IMPORTED.find((r) => r.name === resource)!.noun;
  // by name, so no tool resolves it ahead of time (Vite's would look for .js files in the tests)
  const module = (await import(/* @vite-ignore */ `./resources/${noun}.js`)) as { importer: Importer<unknown> };
  return module.importer;
}
