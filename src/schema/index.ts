// Imports each module for its side effects (registering types), then builds the schema: each
// resource's module is found by its noun (schema/<noun>.ts), in the order of the manifests, parents first.
import { printSubgraphSchema } from '@apollo/subgraph';
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { lexicographicSortSchema, printSchema, specifiedDirectives, type GraphQLSchema } from 'graphql';
import { builder } from '../builder.js';
import { boundEntities, sdlForCallers } from '../graphql/federation.js';
import { PARENTS_FIRST } from '../resources/index.js';
import './service.js';
import './session.js';
import './account.js';

// by name, so no tool resolves it ahead of time (Vite would warn of it in the tests)
for (const resource of PARENTS_FIRST) await import(/* @vite-ignore */ `./${resource.noun}.js`);
await import('./node.js');

builder.queryType({ description: 'The root of every read.' });
builder.subscriptionType({
  description: 'Live data: each record as it is stored, over Server-Sent Events or WebSocket (graphql-ws) at /graphql.',
});

// @defer and @stream, as graphql-yoga's executor runs them (graphql/yoga.ts adds their validation):
// in the printed SDL too, so codegen and clients validate documents that use them
export const schema = builder.toSchema({
  directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
});

let subgraph: GraphQLSchema | undefined;

/**
 * The same graph as an Apollo Federation 2 subgraph (GRAPHQL_SUBGRAPH=true): `_service { sdl }`,
 * and `_entities` for the entities (schema/security.ts), both bounded (graphql/federation.ts). Built on
 * first use, so a gateway that is not a subgraph never builds it.
 */
export function subgraphSchema(): GraphQLSchema {
  return (subgraph ??= sdlForCallers(
    boundEntities(builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' })),
  ));
}

/** The SDL committed as schema.graphql: sorted, so diffs show real changes only. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** The subgraph's SDL, sorted as schema.graphql is (`_service { sdl }` answers the same types in build order): `npm run --silent schema -- --subgraph`. */
export function printedSubgraph(): string {
  return `${printSubgraphSchema(lexicographicSortSchema(subgraphSchema()))}\n`;
}
