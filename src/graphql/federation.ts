// The subgraph's root fields, bounded. `_entities`: @apollo/subgraph's resolver takes any number of
// representations of any shape, and throws a plain Error (answered as INTERNAL) for one it cannot
// place, failing all of them. Here the count is decided before anything runs, and each
// representation is checked, and fails, alone. `_service { sdl }`: the whole schema, which follows
// the introspection rule (docs/federation.md).
import { defaultFieldResolver, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';

/** Representations one `_entities` may carry: each is a lookup, batched by the loaders. */
export const MAX_REPRESENTATIONS = 100;

/**
 * Wraps the `_entities` field of a subgraph schema (made by @pothos/plugin-federation) in place:
 * at most MAX_REPRESENTATIONS, declared to the cost analysis as one item per representation; each
 * an object whose `__typename` names an entity of the schema, else a BAD_REQUEST for that one.
 */
export function boundEntities(schema: GraphQLSchema): GraphQLSchema {
  const field = schema.getQueryType()?.getFields()._entities;
  if (!field?.resolve) return schema;
  const resolveOne = field.resolve as GraphQLFieldResolver<unknown, unknown, { representations: unknown[] }>;
  const entities = new Set(schema.getPossibleTypes(schema.getType('_Entity') as never).map((t) => t.name));
  field.extensions = { ...field.extensions, listSize: { max: MAX_REPRESENTATIONS, itemsOf: 'representations' } };
  field.resolve = (source, args: { representations: unknown[] }, context, info) => {
    const { representations } = args;
    if (representations.length > MAX_REPRESENTATIONS) {
      throw new AppError(
        'BAD_REQUEST',
        `argument "representations": at most ${MAX_REPRESENTATIONS}; got ${representations.length}`,
      );
    }
    // one promise of the whole list, each failure in it as its Error, as nodes(ids:) does
    return Promise.all(
      representations.map(async (representation, i) => {
        const named = `argument "representations"[${i}]`;
        try {
          if (typeof representation !== 'object' || representation === null || Array.isArray(representation))
            throw new AppError('BAD_REQUEST', 'must be an object');
          const typename = (representation as { __typename?: unknown }).__typename;
          if (typeof typename !== 'string' || !entities.has(typename)) {
            throw new AppError(
              'BAD_REQUEST',
              `"__typename" must name an entity (${[...entities].join(', ')}); got ${JSON.stringify(typename)?.slice(0, 64)}`,
            );
          }
          const [entity] = (await resolveOne(
            source,
            { representations: [representation] },
            context,
            info,
          )) as unknown[];
          return await entity;
        } catch (e) {
          // an Error as a list item is that item's error: the others still answer
          return e instanceof AppError && e.code === 'BAD_REQUEST'
            ? new AppError('BAD_REQUEST', `${named}: ${e.message}`)
            : (e as Error);
        }
      }),
    );
  };
  return schema;
}

/**
 * Wraps the `_service` field of a subgraph schema in place: while introspection is off
 * (GRAPHQL_INTROSPECTION, off in production) its SDL, the whole schema, goes to authenticated
 * callers only (a router's composition step sends a credential, as its queries do); anyone else
 * gets UNAUTHENTICATED, as introspection would have refused them.
 */
export function sdlForCallers(schema: GraphQLSchema): GraphQLSchema {
  const field = schema.getQueryType()?.getFields()._service;
  if (!field) return schema;
  const resolve = field.resolve ?? defaultFieldResolver;
  field.resolve = (source, args, context: Context, info) => {
    if (!context.config.graphql.introspection && !context.caller) {
      throw new AppError(
        'UNAUTHENTICATED',
        '_service { sdl } needs a credential while introspection is off: send the X-API-Key or Authorization header',
      );
    }
    return resolve(source, args, context, info);
  };
  return schema;
}
