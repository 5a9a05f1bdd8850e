// How numbers and times read on the page: the browser's locale, New York's exchange days.
const EXCHANGE_DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' });
const PRICE = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
const COMPACT = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 2 });
const TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
// a day as the exchange counts it: a daily bar starts at midnight in New York
const DAY = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'America/New_York' });

/** The exchange day (YYYY-MM-DD, New York) of an instant. */
export const exchangeDay = (at: Date | number | string) => EXCHANGE_DAY.format(new Date(at));

/** `day` moved by whole days, months or years (calendar arithmetic on the date alone). */
export function shiftDay(day: string, { days = 0, months = 0, years = 0 }): string {
  const d = new Date(`${day}T12:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years, d.getUTCMonth() + months, d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export const price = (n: number) => PRICE.format(n);
export const compact = (n: number) => COMPACT.format(n);
export const time = (at: string | number) => TIME.format(new Date(at));
export const day = (at: string) => DAY.format(new Date(at));
/** A number already formatted, with a plus sign when it is not negative. */
export const signed = (n: string) => (n.startsWith('-') ? n : `+${n}`);
/** A change as a signed percentage, or an empty string without a base. */
export const changePercent = (now: number, before: number | undefined) =>
  before ? signed(`${(((now - before) / before) * 100).toFixed(2)}%`) : '';
/** The instant of a trade's SIP timestamp (nanoseconds since the epoch, as a decimal string). */
export const nanosToMs = (ns: string) => Number(BigInt(ns) / 1_000_000n);
