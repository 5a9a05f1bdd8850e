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

const bigInt = schema.getType('BigInt') as GraphQLScalarType;

describe('BigInt on input', () => {
  it('is a bigint whatever form it came in, to the 64-bit bounds', () => {
    for (const [value, want] of [
      [5, 5n],
      ['5', 5n],
      ['1795208399869397596', 1795208399869397596n],
      ['-9223372036854775808', -(2n ** 63n)],
      ['9223372036854775807', 2n ** 63n - 1n],
      [Number.MAX_SAFE_INTEGER, BigInt(Number.MAX_SAFE_INTEGER)],
    ] as const)
      expect(bigInt.parseValue(value)).toBe(want);
    expect(bigInt.parseLiteral({ kind: 'IntValue', value: '42' } as never)).toBe(42n);
    expect(bigInt.parseLiteral({ kind: 'StringValue', value: '42' } as never)).toBe(42n);
  });

  it('refuses what is no 64-bit integer, saying what it got', () => {
    for (const value of ['9223372036854775808', '12x', '', '1e3', 1.5, 2 ** 60, true, null, {}])
      expect(() => bigInt.parseValue(value), String(value)).toThrow(/BigInt must be a 64-bit integer/);
    expect(() => bigInt.parseLiteral({ kind: 'FloatValue', value: '1.5' } as never)).toThrow(GraphQLError);
  });
});
