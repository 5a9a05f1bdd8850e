/**
 * A record table: the keys of one legacy JSON record, each with its row column, its kind, whether
 * it may be missing, and the description the OpenAPI document gives it. It is pure data, written
 * once per resource (`domain/records/<noun>.ts`), and each layer interprets it: `rest/record-table.ts`
 * derives the record's JSON schema and its row -> JSON function, `ingest/record-table.ts` its
 * JSON -> row parse with the validators of `ingest/record-fields.ts`, `schema/record-fields.ts` the
 * plain fields of its GraphQL type. A new plain field of a record is one line of its table
 * (docs/architecture.md#adding-a-resource).
 *
 * The tables live under `domain/` rather than in the manifests because a kind names rules of
 * `domain/` (text and list kinds of `limits.ts`, fiscal years and periods): both `rest/` and
 * `ingest/` sit above it, and the manifests, below it, import nothing of src/.
 */
import type { ListKind, TextKind } from '../limits.js';

/** What a value is: how the schema shows it, how the record writes it, how the import checks it. */
export type Kind =
  /** Text of a kind (short by default); `nonEmpty` refuses blank text; `pattern` is checked after, as `rule`. */
  | {
      readonly kind: 'text';
      readonly text?: TextKind;
      readonly nonEmpty?: true;
      readonly pattern?: RegExp;
      readonly rule?: string;
    }
  /** A 32-bit integer within [min, max]; `shown` puts the bounds in the schema. */
  | { readonly kind: 'integer'; readonly min?: number; readonly max?: number; readonly shown?: true }
  /** A 64-bit integer: a JSON number or a string of digits. */
  | { readonly kind: 'bigint' }
  /** A finite number, within [min, max] when they are given. */
  | { readonly kind: 'number'; readonly min?: number; readonly max?: number }
  | { readonly kind: 'boolean' }
  /** An ISO 8601 time, written as ISO 8601 UTC. */
  | { readonly kind: 'timestamp' }
  /** A calendar date yyyy-mm-dd. */
  | { readonly kind: 'date' }
  /** A ticker symbol (domain/symbols.ts), stored upper-cased. */
  | { readonly kind: 'symbol' }
  /** A SEC Central Index Key, stored zero-padded. */
  | { readonly kind: 'cik' }
  | { readonly kind: 'uuid' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  /** Opaque JSON kept as it came; the schema says nothing of its type, or that it is an `object` ({} when missing). */
  | { readonly kind: 'json'; readonly object?: true }
  /** A list of text of a kind, at most LIST_LIMITS[list] long; written without what is not text. */
  | { readonly kind: 'strings'; readonly text?: TextKind; readonly list?: ListKind }
  | { readonly kind: 'symbols'; readonly list?: ListKind }
  | { readonly kind: 'integers'; readonly min?: number }
  /** A list of opaque JSON values, kept as given. */
  | { readonly kind: 'values' }
  /** A child list: each item a record of `fields`, the column a list of rows. */
  | { readonly kind: 'objects'; readonly fields: RecordTable }
  /** A nested object: its fields are columns of this row (`logos.png.url`: pngUrl), or of the object its column holds. */
  | { readonly kind: 'object'; readonly fields: RecordTable }
  /** Tick fields, with the tick importer's own checks: exact 64-bit, 32-bit, non-negative amounts, a non-empty id, condition codes. */
  | { readonly kind: 'uint64' }
  | { readonly kind: 'int32' }
  | { readonly kind: 'amount' }
  | { readonly kind: 'tickId' }
  | { readonly kind: 'conditions' };

/**
 * When a value may be missing:
 * - absent (the default): always in the record, never null;
 * - `null`: always in the record, null when the row has none; imported as null when absent or null;
 * - `omit`: left out of the record when the row has none; imported as null when absent or null;
 * - `stamp`: always in the record; imported as undefined when absent or null (the store keeps or
 *   assigns its own, as for created_at / updated_at and generated ids);
 * - `keep`: left out of the record when the row has none (or a request asks so: news
 *   `securities=false`); imported as undefined when absent, so the stored value stays.
 */
export type Missing = 'null' | 'omit' | 'stamp' | 'keep';

/** A GraphQL scalar a plain field may have (`builder.ts` adds the custom ones). */
export type GraphqlScalar =
  | 'String'
  | 'Int'
  | 'Float'
  | 'Boolean'
  | 'DateTime'
  | 'Date'
  | 'URL'
  | 'BigInt'
  | 'UUID'
  | 'JSON';

/**
 * How the record's GraphQL type exposes a plain field (`schema/record-fields.ts`): its name (the
 * column by default), its description (the table's by default), its scalar (by its kind: text ->
 * String, integer -> Int, number -> Float, timestamp -> DateTime ...) and whether it is nullable
 * (when it may be missing). A field of a kind without a scalar (enum, lists, objects) is exposed
 * only when `type` names one; a column of a related row (`metrics.peRatio`) is exposed by that
 * row's type, and a dotted key (`classification.gics`) by the type of the object it is under.
 */
export interface GraphqlField {
  readonly name?: string;
  readonly description?: string;
  readonly type?: GraphqlScalar;
  readonly nullable?: boolean;
}

export type Field = Kind & {
  /** The JSON key as the legacy record spells it. */
  readonly key: string;
  /** The row's column (a dotted path reads a related row: `metrics.peRatio`); none for a nested object of this row's columns. */
  readonly column?: string;
  readonly missing?: Missing;
  /** Computed by the service from other data: written, never imported. */
  readonly derived?: true;
  readonly description?: string;
  /** The GraphQL field; `false` where the graph does not expose it or exposes it in a shape of its own (hand-written beside). */
  readonly graphql?: GraphqlField | false;
};

export type RecordTable = readonly Field[];

/**
 * The store's own stamps, as the records that carry them write them: an import that leaves them
 * out keeps (or gets) the store's own (`missing: 'stamp'`).
 */
export const STORE_STAMPS = [
  {
    key: 'created_at',
    column: 'createdAt',
    kind: 'timestamp',
    missing: 'stamp',
    description: 'When the record was created.',
  },
  {
    key: 'updated_at',
    column: 'updatedAt',
    kind: 'timestamp',
    missing: 'stamp',
    description: 'When the record last changed.',
  },
] as const satisfies RecordTable;
