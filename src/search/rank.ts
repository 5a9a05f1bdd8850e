import { AppError } from '../errors.js';
import { inChunks, noPause, type Pause } from './order.js';
import {
  checkQueryLength,
  expandToken,
  highlightName,
  highlightSymbol,
  MAX_QUERY_TOKENS,
  matchCost,
  queryTokens,
  symbolTerm,
  TEXT_FIELDS,
  type Highlight,
  type TextField,
  type Vocabulary,
} from './text.js';

/**
 * Search by symbol and name with typos, as Typesense's `q` over `query_by=symbol,name` (the rules:
 * search/text.ts): each query token expands to the terms of the vocabulary it matches, and a
 * security matches when every token matches one of its terms, or when its symbol is or starts with
 * the whole query.
 */
export interface TextMatch {
  /** Per query token: the vocabulary terms it matched, with their typo counts, for highlights. */
  tokens: readonly { token: string; terms: ReadonlyMap<string, number>; prefix: boolean }[];
  /** The symbol terms the whole query is (0) or starts (1): "brk.a" finds BRK.A though its tokens are "brk" and "a". */
  symbols: ReadonlyMap<string, number>;
  /** [term, field, token index (-1: the whole query as a symbol), matchCost] */
  rows: readonly MatchRow[];
  /** How many tokens every match must match (unless the whole query matches its symbol). */
  tokenCount: number;
}

export type MatchRow = [string, number, number, number];

/** The query's match over `fields` (symbol, name or both) in `vocabulary`; undefined when the query has no token. */
export function textMatch(vocabulary: Vocabulary, q: string, fields: readonly TextField[]): TextMatch | undefined {
  checkQueryLength(q);
  const tokens = queryTokens(q);
  if (tokens.length === 0) return undefined;
  if (tokens.length > MAX_QUERY_TOKENS) {
    throw new AppError('BAD_REQUEST', `search: a query holds at most ${MAX_QUERY_TOKENS} words; got ${tokens.length}`);
  }
  if (fields.length === 0)
    throw new AppError('BAD_REQUEST', 'search: name at least one field to search (symbol, name); got none');
  const fieldSet = new Set(fields.map((f) => TEXT_FIELDS[f]));
  const rows: MatchRow[] = [];
  const matched = tokens.map((token, i) => {
    const prefix = i === tokens.length - 1;
    const terms = new Map<string, number>();
    for (const e of expandToken(vocabulary, token, { prefix, typos: true, fields: fieldSet })) {
      rows.push([e.term, e.field, i, matchCost(e)]);
      terms.set(e.term, Math.min(e.typos, terms.get(e.term) ?? Infinity));
    }
    return { token, terms, prefix };
  });
  const symbols = new Map<string, number>();
  const whole = symbolTerm(q);
  if (fieldSet.has(TEXT_FIELDS.symbol) && whole) {
    const symbolOnly = new Set<number>([TEXT_FIELDS.symbol]);
    for (const e of expandToken(vocabulary, whole, { prefix: true, typos: false, fields: symbolOnly })) {
      rows.push([e.term, e.field, -1, matchCost(e)]);
      symbols.set(e.term, matchCost(e));
    }
  }
  return { tokens: matched, symbols, rows, tokenCount: tokens.length };
}

/** Whether `match` matches no security: a token matched no term, nor the whole query a symbol. */
export function textMatchesNothing(m: TextMatch): boolean {
  return m.symbols.size === 0 && m.tokens.some((t) => t.terms.size === 0);
}

/** What scoring reads of the engine: per `${field}:${term}` the positions holding it, each position's keys, its name's word count. */
export interface TermIndex {
  postings: ReadonlyMap<string, readonly number[]>;
  terms: readonly (readonly string[])[];
  nameWords: readonly number[];
}

/**
 * Each matching position's rank (lower first; absent: no match). Score: the whole query is the
 * symbol (0), starts it (10,000), neither (20,000); plus 100 x the sum over tokens of the cheapest
 * match's cost (2 per typo, 1 for a prefix); plus the name's number of words (every candidate matched
 * the same tokens, so the fewest unmatched words first). Candidates come from the token whose terms
 * reach the fewest positions; the other tokens are checked on each candidate's own terms, so
 * "merion te" reads the postings of "merion", not of every term starting with "te". `pause`: once
 * between chunks of candidates scored (search/order.ts).
 */
export async function textScores(
  index: TermIndex,
  text: TextMatch,
  pause: Pause = noPause,
): Promise<Map<number, number>> {
  const n = text.tokenCount;
  const expansions = Array.from({ length: n }, () => new Map<string, number>());
  const reach = new Array<number>(n).fill(0);
  const whole = new Map<number, number>();
  for (const [term, field, tok, cost] of text.rows) {
    const key = `${field}:${term}`;
    const list = index.postings.get(key);
    if (!list) continue;
    if (tok < 0) {
      for (const i of list) if (!(whole.get(i)! <= cost)) whole.set(i, cost);
      continue;
    }
    const cheapest = expansions[tok]!.get(key);
    if (cheapest === undefined) reach[tok]! += list.length;
    if (!(cheapest! <= cost)) expansions[tok]!.set(key, cost);
  }
  const costOf = (t: number, i: number) => {
    let best = Infinity;
    for (const key of index.terms[i]!) {
      const c = expansions[t]!.get(key);
      if (c !== undefined && c < best) best = c;
    }
    return best;
  };
  const rarest = reach.indexOf(Math.min(...reach));
  const candidates = new Map<number, number>();
  for (const [key, cost] of expansions[rarest]!)
    for (const i of index.postings.get(key)!) if (!(candidates.get(i)! <= cost)) candidates.set(i, cost);
  const scores = new Map<number, number>();
  const scored = [...candidates];
  await inChunks(
    scored.length,
    (from, to) => {
      for (let at = from; at < to; at++) {
        const [i, cost] = scored[at]!;
        let sum = cost;
        for (let t = 0; t < n && sum !== Infinity; t++) if (t !== rarest) sum += costOf(t, i);
        if (sum !== Infinity) scores.set(i, (whole.get(i) ?? 2) * 10_000 + sum * 100 + index.nameWords[i]!);
      }
    },
    pause,
  );
  // the whole query as a symbol matches without every token: its cost counts the tokens it does match
  for (const [i, w] of whole) {
    if (scores.has(i)) continue;
    let sum = 0;
    for (let t = 0; t < n; t++) {
      const c = costOf(t, i);
      if (c !== Infinity) sum += c;
    }
    scores.set(i, w * 10_000 + sum * 100 + index.nameWords[i]!);
  }
  return scores;
}

/** Typesense's `highlights` of one hit: each of `fields` with a matched word, its value marked. */
export function textHighlights(
  row: { symbol: string; name: string },
  match: TextMatch,
  fields: readonly TextField[],
): ({ field: TextField } & Highlight)[] {
  const matched = (term: string) => match.tokens.some((t) => t.terms.has(term));
  const out: ({ field: TextField } & Highlight)[] = [];
  for (const field of fields) {
    const h =
      field === 'symbol'
        ? highlightSymbol(row.symbol, (t) => matched(t) || match.symbols.has(t))
        : highlightName(row.name, matched);
    if (h) out.push({ field, ...h });
  }
  return out;
}
