// Fundamentals records, lite and enhanced, as GET /delivery/api/v1/fundamentals/lite
// returns them (a bare array) or /enhanced does (`{ data: [...] }`), keyed by symbol + year +
// quarter. Derived metrics in an enhanced record are not read: the service computes them from our
// own trades and security master. Insights: from the filing text sections when the record carries
// them (`risk_factors_text`, `mdna_text`, `legal_proceedings_text`), else the record's own insight
// objects, else what is stored. Fields the legacy records do not name are ignored.
import { FUNDAMENTAL_ENHANCED_FIELDS } from '../../domain/records/fundamental.js';
import { fundamentalKey, writeFundamentals, type FundamentalInput } from '../../services/fundamental-write.js';
import {
  litigationInsight,
  mdnaInsight,
  riskFactorsInsight,
  type LitigationInsight,
  type MdnaInsight,
  type RiskFactorsInsight,
} from '../../domain/insights.js';
import type { Importer } from '../importer.js';
import * as f from '../record-fields.js';
import { parseRecord } from '../record-table.js';

function symbolOf(rec: f.Rec): string {
  const { symbol, ticker } = rec;
  if (symbol !== undefined && ticker !== undefined && symbol !== ticker) {
    throw f.reject('symbol', `the same as ticker (${JSON.stringify(ticker)}) when a record has both`, symbol);
  }
  const [field, value] =
    symbol !== undefined
      ? ['symbol', symbol]
      : ticker !== undefined
        ? ['ticker', ticker]
        : ['symbol (or ticker)', undefined];
  return f.symbol(value, field);
}

/** -1 to 1. */
function score(value: unknown, field: string): number {
  const n = f.number(value, field);
  if (n < -1 || n > 1) throw f.reject(field, 'a score from -1 to 1', value);
  return n;
}

const count = (value: unknown, field: string) => f.integer(value, field, 0);

function riskFactors(value: unknown): RiskFactorsInsight | null {
  if (value === null) return null;
  const r = f.object(value, 'risk_factors');
  const worst =
    r.most_negative_risk === null || r.most_negative_risk === undefined
      ? null
      : f.object(r.most_negative_risk, 'risk_factors.most_negative_risk');
  return {
    count: count(r.count, 'risk_factors.count'),
    topThemes: f.strings(r.top_themes, 'risk_factors.top_themes'),
    averageSentimentScore:
      r.average_sentiment_score === null
        ? null
        : score(r.average_sentiment_score, 'risk_factors.average_sentiment_score'),
    mostNegativeRisk: worst && {
      heading: f.string(worst.heading, 'risk_factors.most_negative_risk.heading'),
      sentiment: score(worst.sentiment, 'risk_factors.most_negative_risk.sentiment'),
    },
  };
}

function mdna(value: unknown): MdnaInsight | null {
  if (value === null) return null;
  const m = f.object(value, 'mdna');
  const ratio = f.optNumber(m.forward_to_historical_ratio, 'mdna.forward_to_historical_ratio');
  if (ratio !== null && ratio < 0) throw f.reject('mdna.forward_to_historical_ratio', 'a number >= 0 or null', ratio);
  return {
    forwardLookingTermCount: count(m.forward_looking_term_count, 'mdna.forward_looking_term_count'),
    forwardToHistoricalRatio: ratio,
    toneScore: score(m.tone_score, 'mdna.tone_score'),
    keyTopics: f.strings(m.key_topics, 'mdna.key_topics'),
  };
}

function litigation(value: unknown): LitigationInsight | null {
  if (value === null) return null;
  const l = f.object(value, 'litigation_mentions');
  return {
    count: count(l.count, 'litigation_mentions.count'),
    recentHeadings: f.strings(l.recent_headings, 'litigation_mentions.recent_headings'),
  };
}

/**
 * An insight group: computed from its text section when the record has one (not blank), else read
 * from the record's own object (null included), else undefined (the store keeps its own).
 */
function insight<T>(
  rec: f.Rec,
  textField: string,
  objectField: string,
  fromText: (text: string) => T,
  fromObject: (value: unknown) => T | null,
): T | null | undefined {
  const text = f.optString(rec[textField], textField, 'filing');
  if (text !== null && text.trim() !== '') return fromText(text);
  return rec[objectField] === undefined ? undefined : fromObject(rec[objectField]);
}

export function parseFundamental(record: unknown): FundamentalInput {
  const rec = f.record(record);
  // an enhanced record names its symbol `symbol` and always has a cik; a lite one says `ticker`
  const enhanced = rec.symbol !== undefined;
  return parseRecord(FUNDAMENTAL_ENHANCED_FIELDS, rec, {
    symbol: () => ({ symbol: symbolOf(rec) }),
    cik: () => ({ cik: enhanced ? f.cik(rec.cik, 'cik') : f.optCik(rec.cik, 'cik') }),
    risk_factors: () => ({
      riskFactors: insight(rec, 'risk_factors_text', 'risk_factors', riskFactorsInsight, riskFactors),
    }),
    mdna: () => ({ mdna: insight(rec, 'mdna_text', 'mdna', mdnaInsight, mdna) }),
    litigation_mentions: () => ({
      litigation: insight(rec, 'legal_proceedings_text', 'litigation_mentions', litigationInsight, litigation),
    }),
  }) as FundamentalInput;
}

export const importer: Importer<FundamentalInput> = {
  resource: 'fundamentals',
  recordsOf: (body) => f.listIn(body, 'data'),
  parse: parseFundamental,
  key: fundamentalKey,
  write: writeFundamentals,
};
