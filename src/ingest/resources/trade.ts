// Trades in the shape of GET /stocks/v3/trades/{symbol} , keyed by symbol + sequence_number.
import { tradeTopic } from '../../runtime/events.js';
import { recomputeDerivedMetrics } from '../../services/fundamental-write.js';
import { writeTrades, type Trade } from '../../services/trade.js';
import type { PublishingImporter } from '../importer.js';
import { parseRecord } from '../record-table.js';
import { objectRecord, symbolField, tickRecordsOf, timestampHighWater } from './tick.js';
import { TRADE_FIELDS } from '../../domain/records/trade.js';

export const importer: PublishingImporter<Trade> = {
  resource: 'trades',
  recordsOf: (body) => tickRecordsOf(body, 'trades'),
  parse(record) {
    const r = objectRecord(record, 'trade');
    return { symbol: symbolField(r, 'trade'), ...parseRecord(TRADE_FIELDS, r) } as Trade;
  },
  key: (t) => `${t.symbol}|${t.sequenceNumber}`,
  async write(db, rows) {
    const written = await writeTrades(db, rows);
    // derived metrics (pe_ratio, fcf_yield ...) follow the latest price
    if (written.inserted + written.updated > 0)
      await recomputeDerivedMetrics(db, [...new Set(rows.map((t) => t.symbol))]);
    return written;
  },
  highWater: (t) => timestampHighWater(t.sipTimestamp),
  // the parsed row is the stored row
  eventsOf: async (_db, rows) => rows.map((t) => [tradeTopic(t.symbol), t] as const),
};
