import { AppError } from '../errors.js';

/** A ticker symbol as every filter accepts it (`A-Z 0-9 . -`, as the legacy API's), after upper-casing. */
export const SYMBOL_PATTERN = /^[A-Z0-9.-]{1,20}$/;
export const MAX_SYMBOLS = 100;

/** One symbol, upper-cased; throws a BAD_REQUEST naming `argument` and the value received. */
export function parseSymbol(value: string, argument: string): string {
  const symbol = value.trim().toUpperCase();
  if (!SYMBOL_PATTERN.test(symbol)) {
    throw new AppError('BAD_REQUEST', `argument "${argument}": a symbol must be 1 to 20 characters from A-Z 0-9 . -; got ${JSON.stringify(value)}`);
  }
  return symbol;
}

/**
 * Upper-cased, de-duplicated symbols from one value or a list, each item of which may itself be a
 * comma list ("AAPL,MSFT"), as the REST parameters are. An empty list is an error, not "all".
 */
export function parseSymbols(value: string | readonly string[], argument: string): string[] {
  const items = (typeof value === 'string' ? [value] : value).flatMap((v) => v.split(','));
  const symbols = new Set(items.map((item) => parseSymbol(item, argument)));
  if (symbols.size === 0 || symbols.size > MAX_SYMBOLS) {
    throw new AppError('BAD_REQUEST', `argument "${argument}" must name 1 to ${MAX_SYMBOLS} symbols; got ${symbols.size}`);
  }
  return [...symbols];
}
