import type { PoolClient } from 'pg';
import { getDatamodel } from '../../../generated/pothos-types.js';

/**
 * What db/bulk.ts writes: a model's columns as Prisma's datamodel declares them,
 * which of them a batch writes, and the value a left-out timestamp gets.
 */
export type Row = Record<string, unknown>;

export interface Column {
  name: string;
  type: string;
  kind: 'scalar' | 'enum';
  isUpdatedAt: boolean;
  hasDefault: boolean;
}

export interface BulkOptions {
  /** Rows whose primary or unique key exists already are skipped instead of failing the batch. */
  skipDuplicates?: boolean;
}

export interface UpsertResult {
  inserted: number;
  updated: number;
  unchanged: number;
  /** Per row of the input: true when it was inserted (did not exist before). */
  wasInserted: boolean[];
  /**
   * Per row of the input: when it updated a stored row, that row's values before (the columns
   * UpsertOptions.replaced names, as the driver reads them: a BigInt as text); else undefined.
   */
  replaced: (Row | undefined)[];
}

export interface UpsertOptions {
  /** Runs in the same transaction once the rows are written, for what is derived from them. */
  within?: (client: PoolClient, result: UpsertResult) => Promise<void>;
  /** Columns whose stored values an update replaced are read back (UpsertResult.replaced). */
  replaced?: readonly string[];
}

const models = getDatamodel().datamodel.models as unknown as Record<
  string,
  { fields: (Column & { kind: string; hasDefaultValue: boolean })[] }
>;

function columnsOf(model: string): Column[] {
  const m = models[model];
  if (!m) throw new Error(`bulkInsert: unknown model ${model}`);
  return m.fields
    .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
    .map((f) => ({
      name: f.name,
      type: f.type,
      kind: f.kind as Column['kind'],
      isUpdatedAt: f.isUpdatedAt,
      hasDefault: f.hasDefaultValue,
    }));
}

/** The columns to write: those the first row sets, plus timestamps Prisma would fill in. */
export function chooseColumns(model: string, first: Row): Column[] {
  return columnsOf(model).filter(
    (c) => first[c.name] !== undefined || (c.type === 'DateTime' && (c.isUpdatedAt || c.hasDefault)),
  );
}

/** The value to write before driver encoding: a left-out timestamp gets `now`, as Prisma would. */
export function withDefault(c: Column, v: unknown, now: Date): unknown {
  if (v !== undefined && v !== null) return v;
  return c.type === 'DateTime' && (c.isUpdatedAt || c.hasDefault) ? now : null;
}

/** Columns an update writes: not the key, not a creation timestamp. */
export const updatable = (c: Column, keyColumns: readonly string[]) =>
  !keyColumns.includes(c.name) && !(c.type === 'DateTime' && c.hasDefault && !c.isUpdatedAt);
/** Columns whose difference makes an update: an @updatedAt column changes because of one, not by itself. */
export const compared = (c: Column, keyColumns: readonly string[]) => updatable(c, keyColumns) && !c.isUpdatedAt;

export const quoteName = (n: string) => `"${n}"`;
