// Trades in the shape of GET /stocks/v3/trades/{symbol} , keyed by symbol + sequence_number.
import { tradeTopic } from '../../runtime/events.js';
import { recomputeDerivedMetrics } from '../../services/fundamental-write.js';
import { writeTrades, type Trade } from '../../services/trade.js';
import type { StoringImporter } from '../importer.js';
import { parseRecord } from '../record-table.js';
import { objectRecord, symbolField, tickRecordsOf, timestampHighWater, writeWithEvents } from './tick.js';
import { TRADE_FIELDS } from '../../domain/records/trade.js';

export const importer: StoringImporter<Trade> = {
  storesEvents: true,
  resource: 'trades',
  recordsOf: (body) => tickRecordsOf(body, 'trades'),
  parse(record) {
    const r = objectRecord(record, 'trade');
    return { symbol: symbolField(r, 'trade'), ...parseRecord(TRADE_FIELDS, r) } as Trade;
  },
  key: (t) => `${t.symbol}|${t.sequenceNumber}`,
  async write(db, rows, events) {
    const written = await writeWithEvents((last) => writeTrades(db, rows, last), tradeTopic, events);
    // derived metrics (pe_ratio, fcf_yield ...) follow the latest price
    if (written.inserted + written.updated > 0)
      await recomputeDerivedMetrics(db, [...new Set(rows.map((t) => t.symbol))]);
    return written;
  },
  highWater: (t) => timestampHighWater(t.sipTimestamp),
};
