// Every REST-compatibility route, in one list for the app's router and the OpenAPI document: the
// session's, then each resource's in the order of its manifests (resources/index.ts). A resource's
// routes are the `routes` of the module named by its noun (rest/<noun>.ts), found by that name as
// schema/index.ts finds its types, so a new resource adds no line here.
import { RESOURCES } from '../resources/index.js';
import type { Route } from './route.js';
import { sessionRoutes } from './session.js';

async function routesOf(noun: string): Promise<readonly Route[]> {
  // by name, so no tool resolves it ahead of time (Vite would warn of it in the tests)
  const module = (await import(/* @vite-ignore */ `./${noun}.js`)) as { routes?: readonly Route[] };
  // a manifest without its routes stops the start here, naming the file, as the compiler did when this was a record
  if (!Array.isArray(module.routes) || module.routes.length === 0) {
    throw new Error(
      `src/rest/${noun}.ts must export its resource's routes as \`routes\` (docs/architecture.md#adding-a-resource)`,
    );
  }
  return module.routes;
}

const resourceRoutes = await Promise.all(RESOURCES.map((r) => routesOf(r.noun)));

export const routes: readonly Route[] = [...sessionRoutes, ...resourceRoutes.flat()];
