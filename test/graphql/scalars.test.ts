// The DateTime scalar writes its text itself (src/builder.ts): the same text JSON.stringify wrote
// for the Date graphql-scalars answers, and an error where that Date was invalid (JSON.stringify
// would have written null).
import { GraphQLError, type GraphQLScalarType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.js';

const dateTime = schema.getType('DateTime') as GraphQLScalarType;

describe('DateTime on output', () => {
  it('is the text JSON.stringify writes for the Date, for a Date, an ISO string and a Unix time alike', () => {
    for (const value of [
      new Date('2026-11-27T14:30:00.123Z'),
      new Date(0),
      new Date(-1),
      new Date('+275760-09-13T00:00:00.000Z'),
      '2026-11-27T09:30:00-05:00',
      '2026-11-27T14:30:00Z',
      1_795_208_399_869,
    ]) {
      const asDate = value instanceof Date ? value : new Date(value);
      expect(JSON.stringify(dateTime.serialize(value))).toBe(JSON.stringify(asDate));
    }
  });

  it('refuses what is no time, an invalid Date included', () => {
    for (const value of [new Date(Number.NaN), 'yesterday', Number.NaN, true, {}])
      expect(() => dateTime.serialize(value)).toThrow(GraphQLError);
  });
});
