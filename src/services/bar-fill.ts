// `fill`: a bar for every bucket of the exchange's sessions that no eligible trade set, carrying the
// previous close with no volume and no trade (v 0, n 0), so a quiet minute is drawn as such while a
// bucket outside the sessions (a night, a weekend, a holiday) still has no bar (docs/rest.md#aggregates).
// The buckets are keyed in SQL by the query's own key (bar-bucket.ts), from the session minutes, or
// the trading days, that the market calendar gives.
import type { Db } from '../db/client.js';
import { dayNumber, sessionWindows, type SessionWindow } from '../domain/bar-time.js';
import { tradingDate, tradingDaysBetween } from '../domain/market-calendar.js';
import { AppError } from '../errors.js';
import type { Bar, BarPage, BarQuery } from './bar.js';
import type { Buckets } from './bar-bucket.js';

/** Session minutes, or trading days, a filled range may span: its buckets are enumerated, so bounded as base bars are. */
export const FILL_POSITIONS = 50_000;

/** Where the buckets to fill lie: session minutes for minute and hour bars, trading days for longer ones. */
type Positions = { minutes: SessionWindow[] } | { days: number[] };

function positionsOf(b: Buckets, from: number, to: number, session: BarQuery['session']): Positions {
  if (b.base === 'MinuteBar') return { minutes: sessionWindows(from, to, session, FILL_POSITIONS) };
  return { days: tradingDaysBetween(tradingDate(from), tradingDate(to)).map(dayNumber) };
}

const sizeOf = (p: Positions) => ('days' in p ? p.days.length : p.minutes.reduce((n, w) => n + w.hi - w.lo, 0));

/** A range too long to fill is refused before anything is read, naming `fill`. */
export function checkFill(b: Buckets, from: number, to: number, session: BarQuery['session']): void {
  const size = sizeOf(positionsOf(b, from, to, session));
  if (size > FILL_POSITIONS)
    throw new AppError(
      'BAD_REQUEST',
      `fill: a filled range may span at most ${FILL_POSITIONS} session ${b.base === 'MinuteBar' ? 'minutes' : 'days'}; this one spans more: narrow the range`,
    );
}

/**
 * The page's bars with its quiet buckets filled: those of the span the page covers (to where the
 * limit cut it). `priceless` are the page's buckets of volume without a price (odd lots only),
 * which are filled with their volume; `previousClose` reads the last close before the span.
 */
export async function fillPage(
  db: Db,
  q: BarQuery,
  b: Buckets,
  page: BarPage,
  priceless: readonly Bar[],
  previousClose: (before: number) => Promise<number | undefined>,
): Promise<Bar[]> {
  const from = q.sort === 'asc' || !page.next ? q.from : (page.next as { to: number }).to + 1;
  const to = q.sort === 'desc' || !page.next ? q.to : (page.next as { from: number }).from - 1;
  if (from > to) return page.bars;
  const positions = positionsOf(b, from, to, q.session);
  const keys =
    'days' in positions
      ? await db.read<{ key: string }>(
          `SELECT DISTINCT ${b.key({ day: 'd', local: '0', minute: '0' })} AS "key" FROM unnest($1::int[]) d ORDER BY 1`,
          [positions.days],
        )
      : await db.read<{ key: string }>(
          `SELECT DISTINCT ${b.key({ day: 'w."day"', local: '(w."local" + m - w."lo")', minute: 'm' })} AS "key"
           FROM unnest($1::int[], $2::int[], $3::int[], $4::int[]) w("day", "lo", "hi", "local")
           CROSS JOIN LATERAL generate_series(w."lo", w."hi" - 1) m ORDER BY 1`,
          (['day', 'lo', 'hi', 'local'] as const).map((k) => positions.minutes.map((w) => w[k])),
        );
  const starts = keys.map((k) => b.start(Number(k.key)));
  const bars = q.sort === 'asc' ? page.bars : [...page.bars].reverse();
  const byStart = new Map(bars.map((bar) => [bar.t, bar]));
  const quiet = new Map(priceless.map((bar) => [bar.t, bar]));
  let close = bars.length > 0 && bars[0]!.t <= (starts[0] ?? Infinity) ? undefined : await previousClose(from);
  const out: Bar[] = [];
  let i = 0;
  for (const t of starts) {
    for (; i < bars.length && bars[i]!.t < t; i++) {
      out.push(bars[i]!);
      close = bars[i]!.c!;
    }
    if (byStart.has(t) || close === undefined) continue;
    const q0 = quiet.get(t);
    out.push({ t, o: close, h: close, l: close, c: close, v: q0?.v ?? 0, vw: null, n: q0?.n ?? 0 });
  }
  out.push(...bars.slice(i));
  return q.sort === 'asc' ? out : out.reverse();
}
