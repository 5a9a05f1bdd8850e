/**
 * Market ticks: each symbol's trades and quotes over the last five sessions, as a random walk
 * around its reference price. Streamed one row at a time so that tens of millions of rows never
 * sit in memory.
 */
import type { Prisma } from '../../generated/prisma/client.js';
import { rngFor, type Rng } from './random.js';
import { ANCHOR_DAY_MS, DAY_MS } from './time.js';

/** One symbol's share of the market data; `price` is its reference price. */
export interface MarketSymbol {
  index: number;
  symbol: string;
  price: number;
  tape: number;
  trades: number;
  quotes: number;
}

/** 09:30 New York time in UTC (the sessions all fall after the end of daylight saving time). */
const SESSION_OPEN_MS = (14 * 60 + 30) * 60_000;
const SESSION_NS = 6.5 * 3600 * 1e9;
const SESSION_COUNT = 5;
const TRADING_NS = SESSION_NS * SESSION_COUNT;

/** Epoch nanoseconds of the opening bell of each session, oldest first. */
export function sessionOpensNs(): bigint[] {
  const opens: bigint[] = [];
  for (let day = ANCHOR_DAY_MS; opens.length < SESSION_COUNT; day -= DAY_MS) {
    const weekday = new Date(day).getUTCDay();
    if (weekday !== 0 && weekday !== 6) opens.unshift(BigInt(day + SESSION_OPEN_MS) * 1_000_000n);
  }
  return opens;
}

// Shared, frozen condition arrays: rows reference them instead of allocating one per row.
const freeze = (sets: number[][]): readonly (readonly number[])[] => Object.freeze(sets.map((s) => Object.freeze(s)));
/** Weighted by repetition; indexed with a uniform draw. */
const TRADE_CONDITIONS = freeze([[], [], [], [], [], [], [12, 37], [12, 37], [12, 37], [37], [14, 41], [12]]);
const QUOTE_CONDITIONS = freeze([[], [], [], [], [1], [1], [14], [1, 9]]);
const TRADE_VENUES = [4, 4, 4, 4, 11, 11, 12, 12, 12, 15, 15, 19] as const;
const QUOTE_VENUES = [4, 11, 11, 12, 12, 15, 19, 19] as const;

/**
 * A symbol's path through trading time and price. Row j of its n rows is placed at a uniform point
 * of the j-th of n equal slots of trading time, so timestamps rise with the sequence number without
 * sorting; now and then (with probability `repeat`) a row keeps the previous timestamp (sweeps
 * print together), and the sequence number breaks the tie. The level (a trade price, a quote
 * midpoint) reverts to the reference price with small random steps and never falls below `floor`.
 */
class Walk {
  /** the current row's offset in nanoseconds of trading time */
  t = 0;
  level: number;
  private readonly slot: number;
  private readonly step: number;

  constructor(
    private readonly rng: Rng,
    private readonly base: number,
    rows: number,
    private readonly repeat: number,
    private readonly floor: number,
  ) {
    this.level = base;
    this.slot = TRADING_NS / rows;
    this.step = base * 0.002;
  }

  /** Moves to row j: its time, then its level. */
  advance(j: number): void {
    const rng = this.rng;
    if (j === 0 || rng.next() >= this.repeat) {
      const next = Math.floor((j + rng.next()) * this.slot);
      this.t = next < this.t ? this.t : next >= TRADING_NS ? TRADING_NS - 1 : next;
    }
    this.level += (this.base - this.level) * 0.0005 + this.step * (rng.next() - 0.5);
    if (this.level < this.floor) this.level = this.floor;
  }
}

/** Mostly consecutive; now and then a gap, as other symbols' messages take numbers in between. */
const nextSequence = (rng: Rng, seq: number): number => seq + (rng.next() < 0.15 ? 2 + ((rng.next() * 6) | 0) : 1);

/** An offset in trading time as epoch nanoseconds: the sessions are laid end to end. */
function sipTimestamp(opens: bigint[], t: number): bigint {
  const session = (t / SESSION_NS) | 0;
  return opens[session]! + BigInt(t - session * SESSION_NS);
}

/** One symbol's trades in order: a random walk around its reference price. */
export function* symbolTrades(seed: number, s: MarketSymbol, opens: bigint[]): Generator<Prisma.TradeCreateManyInput> {
  const n = s.trades;
  if (n === 0) return;
  const rng = rngFor(seed, 'trades', s.index);
  const walk = new Walk(rng, s.price, n, 0.03, 0.01);
  let seq = 1000 + s.index * 7 + rng.int(0, 999);
  const firstTradeId = rng.int(10_000, 99_999) * 1000;
  for (let j = 0; j < n; j++) {
    walk.advance(j);
    const u = rng.next();
    const size = u < 0.45 ? 1 + ((u * 220) | 0) : 100 * (1 + ((u * u * u * 20) | 0));
    seq = nextSequence(rng, seq);
    yield {
      symbol: s.symbol,
      sequenceNumber: BigInt(seq),
      sipTimestamp: sipTimestamp(opens, walk.t),
      tradeId: String(firstTradeId + j),
      price: Math.round(walk.level * 10_000) / 10_000,
      size,
      exchange: TRADE_VENUES[(rng.next() * TRADE_VENUES.length) | 0]!,
      tape: s.tape,
      conditions: TRADE_CONDITIONS[(rng.next() * TRADE_CONDITIONS.length) | 0]!,
    };
  }
}

/** Quotes follow the same time layout as trades; prices are whole cents with bid < ask. */
export function* symbolQuotes(seed: number, s: MarketSymbol, opens: bigint[]): Generator<Prisma.QuoteCreateManyInput> {
  const n = s.quotes;
  if (n === 0) return;
  const rng = rngFor(seed, 'quotes', s.index);
  const walk = new Walk(rng, s.price, n, 0.05, 0.05);
  let seq = 1000 + s.index * 11 + rng.int(0, 999);
  for (let j = 0; j < n; j++) {
    walk.advance(j);
    const u = rng.next();
    const ticks = u < 0.5 ? 1 : u < 0.8 ? 2 : u < 0.95 ? 3 : 5;
    const bidCents = Math.max(1, Math.floor(walk.level * 100 - ticks / 2));
    const a = rng.next(),
      b = rng.next();
    seq = nextSequence(rng, seq);
    yield {
      symbol: s.symbol,
      sequenceNumber: BigInt(seq),
      sipTimestamp: sipTimestamp(opens, walk.t),
      askExchange: QUOTE_VENUES[(a * QUOTE_VENUES.length) | 0]!,
      askPrice: (bidCents + ticks) / 100,
      askSize: 100 * (1 + ((a * a * 30) | 0)),
      bidExchange: QUOTE_VENUES[(b * QUOTE_VENUES.length) | 0]!,
      bidPrice: bidCents / 100,
      bidSize: 100 * (1 + ((b * b * 30) | 0)),
      tape: s.tape,
      conditions: QUOTE_CONDITIONS[(rng.next() * QUOTE_CONDITIONS.length) | 0]!,
    };
  }
}
