import { AppError } from '../errors.js';

// The symbol rule, the one every entry point applies: REST parameters (rest/params.ts), GraphQL
// arguments through the services and resolvers, subscriptions, and the import of a record
// (ingest/record-fields.ts). Each says it in its own words; what is a symbol is decided here.

/** A ticker symbol as every filter accepts it (`A-Z 0-9 . -`, as the legacy API's), after upper-casing. */
export const SYMBOL_PATTERN = /^[A-Z0-9.-]{1,20}$/;
export const MAX_SYMBOLS = 100;

/** The symbol a value names (trimmed, upper-cased), or undefined when it names none. */
export function normalizeSymbol(value: string): string | undefined {
  const symbol = value.trim().toUpperCase();
  return SYMBOL_PATTERN.test(symbol) ? symbol : undefined;
}

/** One symbol, upper-cased; throws a BAD_REQUEST naming `argument` and the value received. */
export function parseSymbol(value: string, argument: string): string {
  const symbol = normalizeSymbol(value);
  if (symbol === undefined) {
    throw new AppError(
      'BAD_REQUEST',
      `argument "${argument}": a symbol must be 1 to 20 characters from A-Z 0-9 . -; got ${JSON.stringify(value)}`,
    );
  }
  return symbol;
}

/**
 * Upper-cased, de-duplicated symbols from one value or a list, each item of which may itself be a
 * comma list ("AAPL,MSFT"), as the REST parameters are. An empty list is an error, not "all".
 */
export function parseSymbols(value: string | readonly string[], argument: string, max = MAX_SYMBOLS): string[] {
  const items = (typeof value === 'string' ? [value] : value).flatMap((v) => v.split(','));
  if (items.length > max * 2) {
    throw new AppError('BAD_REQUEST', `argument "${argument}" must name 1 to ${max} symbols; got ${items.length}`);
  }
  const symbols = new Set(items.map((item) => parseSymbol(item, argument)));
  if (symbols.size === 0 || symbols.size > max) {
    throw new AppError('BAD_REQUEST', `argument "${argument}" must name 1 to ${max} symbols; got ${symbols.size}`);
  }
  return [...symbols];
}

/**
 * The symbols of a field that takes one (`symbol`) or a list (`symbols`): exactly one of the two,
 * the one by parseSymbol, the list by parseSymbols (1 to MAX_SYMBOLS, de-duplicated).
 */
export function symbolOrSymbols(given: {
  symbol?: string | null | undefined;
  symbols?: readonly string[] | null | undefined;
}): { symbol: string } | { symbols: string[] } {
  const { symbol, symbols } = given;
  const named = (symbol != null ? 1 : 0) + (symbols != null ? 1 : 0);
  if (named !== 1)
    throw new AppError(
      'BAD_REQUEST',
      `give exactly one of the arguments "symbol" (one symbol) and "symbols" (a list); got ${named ? 'both' : 'neither'}`,
    );
  if (symbol?.includes(','))
    throw new AppError(
      'BAD_REQUEST',
      `argument "symbol" names one symbol; for several give "symbols" a list instead (as ${JSON.stringify(
        symbol
          .split(',')
          .map((s) => s.trim())
          .slice(0, 3),
      )}); got ${JSON.stringify(symbol.slice(0, 100))}`,
    );
  return symbol != null ? { symbol: parseSymbol(symbol, 'symbol') } : { symbols: parseSymbols(symbols!, 'symbols') };
}

/**
 * Symbols looked up one by one (a watchlist), in the order given and as many as given, each by
 * parseSymbol naming its place (`symbols[2]`); at most MAX_SYMBOLS. Unlike parseSymbols, nothing
 * is split or merged: the answer has one item per item asked for.
 */
export function parseSymbolList(values: readonly string[], argument: string): string[] {
  if (values.length > MAX_SYMBOLS)
    throw new AppError(
      'BAD_REQUEST',
      `argument "${argument}" may name at most ${MAX_SYMBOLS} symbols; got ${values.length}`,
    );
  return values.map((value, i) => parseSymbol(value, `${argument}[${i}]`));
}
