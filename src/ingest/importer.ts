// The contract between the data-in paths (`cli import`, `cli sync`, the NDJSON stream) and the
// resources. One Importer per resource, in src/ingest/resources/<noun>.ts; it knows the legacy JSON
// shape of one record (the shape our own REST routes return, which is what a legacy vendor returns)
// and how to write a batch of them idempotently through its service. A StoringImporter or a
// PublishingImporter (below) also publishes the records it inserted as live events, for the GraphQL
// subscriptions. How a file or a stream becomes batches for an Importer is import-stream.ts's.
import type { WriteCounts } from '../db/upsert.js';
import type { Db } from '../db/client.js';
import { tooLargeMessage } from '../db/outbox.js';
import type { EventBus } from '../runtime/events.js';
import { IMPORTED, type ImportName } from '../resources/index.js';

/**
 * CLI names of the importable resources (those whose manifest says how to sync them), in the
 * order a full sync runs them (parents first).
 */
export const IMPORT_RESOURCES: readonly ImportName[] = IMPORTED.map((r) => r.name);
export type ImportResource = ImportName;

/**
 * A record that cannot be imported. `reason` names the field and the value received, e.g.
 * `sequence_number: must be a non-negative integer, got "abc"`. Thrown by Importer.parse.
 */
export class RejectError extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export interface Importer<Row> {
  resource: ImportResource;
  /**
   * The records of one whole REST response body of this resource (`{ data: [...] }`,
   * `{ results: [...] }`, `{ hits: [{ document }] }`, a bare array ...), or null when `body` is not
   * such an envelope (then the caller treats `body` as one record).
   */
  recordsOf(body: unknown): unknown[] | null;
  /** Validates one record in the legacy shape and maps it to what `write` stores; throws RejectError. */
  parse(record: unknown): Row;
  /** The natural key (e.g. `figi|mic`, `symbol|sequence_number`): the last of equal keys in a batch wins. */
  key(row: Row): string;
  /**
   * Writes a batch in ONE transaction through the resource's service: inserts new records, updates
   * changed ones, leaves equal ones alone, so writing the same batch twice changes nothing.
   * Child rows (a logo's securities, a release's tickers ...) are replaced with the record.
   */
  write(db: Db, rows: Row[]): Promise<WriteCounts>;
  /**
   * The high-water value of a row for incremental sync (a timestamp, a sequence number, a date as
   * sortable text), or undefined when the resource has none and is synced whole.
   */
  highWater?(row: Row): string | undefined;
}

/** An event: the topic (runtime/events.ts names them) and the stored row. */
export type ImportEvent = readonly [topic: string, payload: unknown];

/**
 * An importer that appends the events of the records it inserts in the batch's own transaction, as
 * its last work (trades, quotes): a batch's rows and their events commit together or not at all
 * (docs/architecture.md#live-events-and-their-positions).
 */
export interface StoringImporter<Row> extends Importer<Row> {
  storesEvents: true;
  /** As Importer.write; with `events`, also appends them there, and counts those left out for their size. */
  write(db: Db, rows: Row[], events?: EventBus): Promise<WriteCounts & { tooLarge: number }>;
}

/**
 * An importer whose inserted records are published on the event bus once their batch commits
 * (press releases, news: their events carry what is read back after the write). A process killed
 * between the commit and the publish loses that batch's events.
 */
export interface PublishingImporter<Row> extends Importer<Row> {
  write(db: Db, rows: Row[]): Promise<WriteCounts & { insertedRows: Row[] }>;
  /**
   * The events of the records a committed batch inserted, each carrying the row as stored (read
   * back where the stored row holds more than the parsed record: ids, child rows, stamps).
   */
  eventsOf(db: Db, inserted: Row[]): Promise<ImportEvent[]>;
}

/** Whether the importer's records are live events (so its data-in path needs the bus). */
export function isPublishing<Row>(importer: Importer<Row>): boolean {
  return isStoring(importer) || isPublishingAfter(importer);
}
const isPublishingAfter = <Row>(importer: Importer<Row>): importer is PublishingImporter<Row> =>
  typeof (importer as Partial<PublishingImporter<Row>>).eventsOf === 'function';
const isStoring = <Row>(importer: Importer<Row>): importer is StoringImporter<Row> =>
  (importer as Partial<StoringImporter<Row>>).storesEvents === true;

/** Writes a batch through `importer`, its events in its transaction when the importer stores them. */
export function writeImported<Row>(
  db: Db,
  importer: Importer<Row>,
  rows: Row[],
  events: EventBus | undefined,
): Promise<WriteCounts> {
  return isStoring(importer) ? importer.write(db, rows, events) : importer.write(db, rows);
}

/**
 * After a batch's `writeImported` commits: publishes what a PublishingImporter inserted, and throws
 * when events were left out for their size. Called by every data-in path; a failure here leaves
 * the stored rows stored.
 */
export async function publishInserted<Row>(
  db: Db,
  importer: Importer<Row>,
  written: WriteCounts,
  bus: EventBus,
): Promise<void> {
  const { insertedRows: inserted, tooLarge } = written as Partial<{ insertedRows: Row[]; tooLarge: number }>;
  if (isPublishingAfter(importer) && inserted?.length) await bus.publishAll(await importer.eventsOf(db, inserted));
  if (tooLarge) throw new Error(tooLargeMessage(tooLarge));
}
