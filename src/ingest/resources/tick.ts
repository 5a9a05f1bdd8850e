// What the trade and quote importers share: the envelope of GET /stocks/v3/{trades|quotes}/{symbol}
// and the checks of their fields. Messages name the field and the value received.
import type { WriteCounts } from '../../db/upsert.js';
import { normalizeSymbol } from '../../domain/symbols.js';
import type { EventBus } from '../../runtime/events.js';
import type { LastInTransaction } from '../../services/tick.js';
import { RejectError } from '../importer.js';
import * as f from '../record-fields.js';

const MAX_INT64 = 9_223_372_036_854_775_807n;

export type Fields = Record<string, unknown>;

const shown = (v: unknown) =>
  typeof v === 'bigint' ? v.toString() : v === undefined ? 'nothing' : (JSON.stringify(v)?.slice(0, 60) ?? String(v));

export function objectRecord(record: unknown, noun: string): Fields {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) {
    throw new RejectError(`a ${noun} record must be a JSON object, got ${shown(record)}`);
  }
  return record as Fields;
}

/**
 * The records of a whole response body (`{ results: [...] }`) or of a bare array. The legacy API's body
 * does not carry the symbol in its records; the path of its `next_url`
 * (`.../stocks/v3/trades/AAPL?cursor=...`), or a `ticker`/`symbol` field of the envelope, names it,
 * and records that do not name their own get it.
 */
export function tickRecordsOf(body: unknown, path: 'trades' | 'quotes'): unknown[] | null {
  if (Array.isArray(body)) return body;
  if (body === null || typeof body !== 'object') return null;
  const envelope = body as Fields;
  if (!Array.isArray(envelope.results)) {
    // an error answer saved with the data (`{ status: "ERROR", code, message, request_id }`)
    if (envelope.status === 'ERROR' || (typeof envelope.status === 'string' && 'request_id' in envelope)) {
      throw new RejectError(`a response body without results: ${shown(envelope.message ?? envelope.status)}`);
    }
    return null;
  }
  const symbol = envelopeSymbol(envelope, path);
  if (symbol === undefined) return envelope.results;
  return envelope.results.map((r) =>
    r !== null && typeof r === 'object' && !Array.isArray(r) && (r as Fields).symbol === undefined
      ? { ...(r as Fields), symbol }
      : r,
  );
}

function envelopeSymbol(envelope: Fields, path: string): string | undefined {
  for (const k of ['ticker', 'symbol']) if (typeof envelope[k] === 'string') return envelope[k] as string;
  if (typeof envelope.next_url !== 'string') return undefined;
  const m = new RegExp(`/stocks/v3/${path}/([^/?#]+)`).exec(envelope.next_url);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return undefined;
  }
}

export function symbolField(r: Fields, noun: string): string {
  const v = r.symbol;
  // the remedy is in the reason: every record of a saved last page (no next_url) is rejected for it
  if (v === undefined)
    throw new RejectError(
      `symbol: missing; one symbol's listing (GET /stocks/v3/${noun}s/{symbol}) leaves it out of its records: pass --symbol SYMBOL`,
    );
  if (typeof v !== 'string')
    throw new RejectError(`symbol: must be a string of 1 to 20 characters from A-Z 0-9 . -, got ${shown(v)}`);
  const s = normalizeSymbol(v);
  if (s === undefined) throw new RejectError(`symbol: must be 1 to 20 characters from A-Z 0-9 . -, got ${shown(v)}`);
  return s;
}

/** A 64-bit non-negative integer, exact: a safe-integer number or a bigint (as parseJsonExact gives). */
export function uint64Field(r: Fields, name: string): bigint {
  const v = r[name];
  if (typeof v === 'bigint') {
    if (v < 0n || v > MAX_INT64) throw new RejectError(`${name}: must be an integer from 0 to 2^63-1, got ${v}`);
    return v;
  }
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) {
    if (!Number.isSafeInteger(v))
      throw new RejectError(`${name}: ${v} was rounded beyond 2^53 before it got here; parse JSON with parseJsonExact`);
    return BigInt(v);
  }
  throw new RejectError(`${name}: must be a non-negative integer, got ${shown(v)}`);
}

const isInt32 = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= -2_147_483_648 && v <= 2_147_483_647;

export function intField(r: Fields, name: string): number {
  const v = r[name];
  if (isInt32(v)) return v;
  throw new RejectError(`${name}: must be a 32-bit integer, got ${shown(v)}`);
}

export function numberField(r: Fields, name: string): number {
  const v = r[name];
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  throw new RejectError(`${name}: must be a non-negative number, got ${shown(v)}`);
}

export function stringField(r: Fields, name: string): string {
  const v = r[name];
  if (typeof v === 'string' && v !== '') return f.string(v, name);
  throw new RejectError(`${name}: must be a non-empty string, got ${shown(v)}`);
}

/**
 * Condition codes, at most LIST_LIMITS.conditions of them, each a 32-bit integer (GraphQL's Int);
 * a record without the field has none (vendors leave it out when empty).
 */
export function conditionsField(r: Fields): number[] {
  const v = r.conditions;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every(isInt32))
    throw new RejectError(`conditions: must be an array of 32-bit integers, got ${shown(v)}`);
  return f.array(v, 'conditions', 'conditions') as number[];
}

/** A sip_timestamp as sortable text: zero-padded to 19 digits. */
export const timestampHighWater = (ns: bigint) => ns.toString().padStart(19, '0');

/**
 * A tick writer's batch with, as the last work of its transaction, the events of the rows it
 * inserted on `topic(symbol)` (EventBus.publishIn, StoringImporter in ingest/importer.ts). The
 * parsed row is the stored row, so it is the payload.
 */
export async function writeWithEvents<Row extends { symbol: string }, W extends WriteCounts>(
  write: (last?: LastInTransaction<Row>) => Promise<W>,
  topic: (symbol: string) => string,
  events: EventBus | undefined,
): Promise<W & { tooLarge: number }> {
  let published: Awaited<ReturnType<EventBus['publishIn']>> | undefined;
  const written = await write(
    events &&
      (async (client, inserted) => {
        published = await events.publishIn(
          client,
          inserted.map((r) => [topic(r.symbol), r] as const),
        );
      }),
  );
  // committed: what a bus with no transaction to join hands out now
  await published?.committed?.();
  return { ...written, tooLarge: published?.tooLarge ?? 0 };
}
