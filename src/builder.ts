import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import { BigIntResolver, DateTimeResolver, JSONResolver, LocalDateResolver } from 'graphql-scalars';
import type { Context } from './context.js';
import type PrismaTypes from './generated/pothos-types.js';
import { getDatamodel } from './generated/pothos-types.js';

/** The schema builder: plugins and scalars only; resource modules under schema/ add the types. */
export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  Scalars: {
    BigInt: { Input: bigint; Output: bigint | number | string };
    Date: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin, DataloaderPlugin],
  relay: {},
  prisma: {
    // The client differs per request context only in tests; resolvers get it from the context.
    client: (ctx) => ctx.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.addScalarType('BigInt', BigIntResolver);
builder.addScalarType('Date', LocalDateResolver);
builder.addScalarType('DateTime', DateTimeResolver);
builder.addScalarType('JSON', JSONResolver);
