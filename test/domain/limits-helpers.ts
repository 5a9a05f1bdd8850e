// What the tests of the limits of src/domain/limits.ts share: values of a given size and the
// reasons a reject gives for them.
import { expect } from 'vitest';

export const pad = (length: number) => 'x'.repeat(length);
const cut = (text: string) => (text.length > 80 ? `${text.slice(0, 77)}...` : text);
export const tooLong = (name: string, limit: number, value: string) =>
  `${name}: must be at most ${limit} characters, got ${value.length} characters (${cut(JSON.stringify(value))})`;
export const tooMany = (name: string, max: number) => `${name}: must have at most ${max} items, got ${max + 1} items`;

/** A JSON value whose JSON text is exactly `length` characters: an object of one string, or a list of 64 strings of at most 256 characters. */
export function jsonOfLength(length: number, shape: 'object' | 'list'): unknown {
  if (shape === 'object') return { k: pad(length - '{"k":""}'.length) };
  // `[` + 64 × `"…"` + 63 commas + `]`
  const chars = length - 1 - 3 * 64;
  const value = Array.from({ length: 64 }, (_, i) => pad(Math.floor(chars / 64) + (i < chars % 64 ? 1 : 0)));
  expect(JSON.stringify(value).length).toBe(length);
  return value;
}
