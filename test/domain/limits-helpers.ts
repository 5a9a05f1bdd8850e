// What the tests of the limits of src/domain/limits.ts share: values of a given size and the
// reasons a reject gives for them.
import { isObjectType } from 'graphql';
import { expect } from 'vitest';
import { FIELD_TEXT_KINDS, type TextKind } from '../../src/domain/limits.js';
import { schema } from '../../src/schema/index.js';

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

/**
 * Every stored text the schema serves that is not short, by coordinate: the kinds the manifests
 * declare for fields written by hand (FIELD_TEXT_KINDS) and those the field tables give the fields
 * they expose (an extension, schema/record-fields.ts). A coordinate declared both ways is a rule
 * written twice: it fails here.
 */
export function servedTextKinds(): Readonly<Record<string, TextKind>> {
  const out: Record<string, TextKind> = { ...FIELD_TEXT_KINDS };
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const kind = field.extensions?.textKind as TextKind | undefined;
      if (!kind) continue;
      const coordinate = `${type.name}.${field.name}`;
      if (Object.hasOwn(out, coordinate))
        throw new Error(`${coordinate}: its text kind is in its field table; drop it from its manifest's textKinds`);
      out[coordinate] = kind;
    }
  }
  return out;
}
