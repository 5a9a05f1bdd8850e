import SchemaBuilder from '@pothos/core';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import {
  BigIntResolver,
  DateTimeResolver,
  JSONResolver,
  LocalDateResolver,
  URLResolver,
  UUIDResolver,
} from 'graphql-scalars';
import { checkAuthenticated, checkEntitled, checkSession, type Resource } from './domain/entitlements.js';
import { parseTime, timeAsDate, TIME_FORMS } from './domain/time.js';
import type { Context } from './context.js';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';

/**
 * The schema builder: plugins and scalars only; resource modules under schema/ add the types.
 * Fields are non-null unless marked, so generated client types say what is always there.
 */
export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: { authenticated: boolean; session: boolean; entitled: Resource };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  /** Every connection may carry a lazy count (root lists do; nested edges do not), and whether it is an estimate. */
  Connection: {
    totalCount?: (() => Promise<number>) | undefined;
    totalCountIsEstimate?: (() => Promise<boolean>) | undefined;
  };
  Scalars: {
    BigInt: { Input: bigint; Output: bigint | number | string };
    Date: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    URL: { Input: URL; Output: URL | string };
    UUID: { Input: string; Output: string };
  };
}>({
  // federation last: its entities' references resolve inside the scopes' wrappers (schema/index.ts
  // builds the subgraph; the public graph carries its @key directives only as type extensions)
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin, DirectivePlugin, FederationPlugin],
  defaultFieldNullability: false,
  // The scopes throw the coded error themselves (UNAUTHENTICATED, or FORBIDDEN naming the tier
  // needed), so a field a caller may not see fails alone while the rest of the query answers;
  // hence every field with `entitled` is nullable (docs/graphql.md#names-nulls-and-errors).
  scopeAuth: {
    // a subscription's scopes are checked when it starts, so a caller without them gets no stream
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      authenticated: () => {
        checkAuthenticated(ctx.caller);
        return true;
      },
      session: () => {
        checkSession(ctx.caller);
        return true;
      },
      entitled: (resource: Resource) => {
        checkEntitled(ctx.caller, resource);
        return true;
      },
    }),
  },
  relay: {
    cursorType: 'String',
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    nodesOnConnection: true,
    // schema/node.ts defines node and nodes: it decodes and checks each id itself
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  prisma: {
    client: (ctx) => ctx.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

// Always a decimal string on output: JavaScript clients parse JSON numbers as doubles, which lose
// digits past 2^53 (nanosecond timestamps have 19). Input takes a string or an integer literal.
builder.addScalarType(
  'BigInt',
  new GraphQLScalarType({
    ...BigIntResolver.toConfig(),
    description:
      'A 64-bit integer, written as a decimal string so that every digit survives JSON (e.g. nanosecond timestamps: "1795208399869397596").',
    serialize: (value) => {
      const n = typeof value === 'bigint' ? value : BigInt(value as string | number);
      return n.toString();
    },
    // always a bigint in (graphql-scalars gives a number for a small one, and warns of JSON on the way)
    parseValue: readBigInt,
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.INT && ast.kind !== Kind.STRING)
        throw new GraphQLError('BigInt must be an integer or a string of digits', { nodes: ast });
      try {
        return readBigInt(ast.value);
      } catch (e) {
        throw new GraphQLError((e as Error).message, { nodes: ast });
      }
    },
  }),
);

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n } as const;

/** A BigInt argument: an integer (a safe one, as JSON numbers are doubles) or a string of digits, within 64 bits. */
function readBigInt(value: unknown): bigint {
  const n =
    typeof value === 'bigint'
      ? value
      : typeof value === 'number' && Number.isSafeInteger(value)
        ? BigInt(value)
        : typeof value === 'string' && /^-?\d{1,19}$/.test(value)
          ? BigInt(value)
          : undefined;
  if (n === undefined || n < INT64.min || n > INT64.max) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 30)) : String(value).slice(0, 30);
    throw new GraphQLError(
      `BigInt must be a 64-bit integer, as a number up to 2^53 or a string of digits; got ${shown}`,
    );
  }
  return n;
}
builder.addScalarType('Date', LocalDateResolver);
/** A DateTime argument, read as every REST time parameter is (domain/time.ts); a date alone is a CalendarDay. */
function readDateTime(value: unknown): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  const t = typeof value === 'string' ? parseTime(value) : undefined;
  if (!t) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 100)) : typeof value;
    throw new GraphQLError(`DateTime must be ${TIME_FORMS}; got ${shown}`);
  }
  return timeAsDate(t);
}

// Output as graphql-scalars writes it (ISO 8601 in UTC); input in every form REST takes, so a query
// and its REST twin take the same dates (docs/graphql.md#choices-the-graph-makes)
builder.addScalarType(
  'DateTime',
  new GraphQLScalarType({
    ...DateTimeResolver.toConfig(),
    // the text JSON.stringify writes for the Date graphql-scalars answers (its toJSON is
    // toISOString), written here: JSON.stringify calling toJSON back for each of a list page's 500
    // dates was ~70% of its stringify and ~15% of the server's CPU (bench/RESULTS.md, "Issue 26:
    // dates written once, and the answer's objects")
    serialize: (value) => {
      const date = DateTimeResolver.serialize(value) as Date;
      if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime cannot represent an invalid Date instance');
      return date.toISOString();
    },
    description:
      'A time. Answers are ISO 8601 in UTC (2026-01-31T14:30:00.000Z). Arguments take ISO 8601 (UTC when no zone is given), YYYY-MM-DD HH:MM:SS (UTC), or a date YYYY-MM-DD: from its start (UTC) as a lower bound, through its end as an upper one.',
    parseValue: readDateTime,
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING) throw new GraphQLError(`DateTime must be a string: ${TIME_FORMS}`, { nodes: ast });
      try {
        return readDateTime(ast.value);
      } catch (e) {
        throw new GraphQLError((e as Error).message, { nodes: ast });
      }
    },
  }),
);
builder.addScalarType('JSON', JSONResolver);
builder.addScalarType('URL', URLResolver);
builder.addScalarType('UUID', UUIDResolver);

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    nullable: true,
    description:
      'How many items match the filters in all, ignoring paging; null where counting is not offered (nested lists).',
    resolve: (parent) => parent.totalCount?.() ?? null,
  }),
);

builder.globalConnectionField('totalCountIsEstimate', (t) =>
  t.boolean({
    nullable: true,
    description:
      "Whether `totalCount` is PostgreSQL's estimate rather than an exact count (only ever on trades and quotes, past a bound); null where `totalCount` is.",
    resolve: (parent) => parent.totalCountIsEstimate?.() ?? (parent.totalCount ? false : null),
  }),
);
