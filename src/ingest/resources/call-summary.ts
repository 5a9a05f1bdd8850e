// Conference-call summaries (docs/rest.md): one item of `data`, as GET /delivery/api/v1/summaries
// returns it (src/rest/call-summary.ts).
import type { Importer } from '../importer.js';
import { callSummaryKey, writeCallSummaries, type CallSummaryInput } from '../../services/call-summary.js';
import { FISCAL_PERIODS, FISCAL_YEARS } from '../../domain/fiscal.js';
import * as f from '../record-fields.js';

export function parseCallSummary(record: unknown): CallSummaryInput {
  const rec = f.record(record);
  const sentiment = f.number(rec.sentiment_score, 'sentiment_score');
  if (sentiment < -1 || sentiment > 1) throw f.reject('sentiment_score', 'a number from -1 to 1', sentiment);
  return {
    id: f.optInteger(rec.id, 'id', 1) ?? undefined,
    symbol: f.symbol(rec.symbol, 'symbol'),
    companyName: f.string(rec.company_name, 'company_name'),
    callDate: f.timestamp(rec.call_date, 'call_date'),
    fiscalYear: f.integer(rec.fiscal_year, 'fiscal_year', FISCAL_YEARS.min, FISCAL_YEARS.max),
    fiscalPeriod: f.oneOf(rec.fiscal_period, 'fiscal_period', FISCAL_PERIODS),
    title: f.string(rec.title, 'title'),
    summary: f.string(rec.summary, 'summary', 'long'),
    keyPoints: f.strings(rec.key_points, 'key_points', 'sentence'),
    guidance: f.optString(rec.guidance, 'guidance', 'long'),
    sentimentScore: sentiment,
    participants: f.objects(rec.participants, 'participants', (p, at) => ({
      name: f.string(p.name, `${at}.name`),
      role: f.string(p.role, `${at}.role`),
      organization: f.string(p.organization, `${at}.organization`),
    })),
    createdAt: f.optTimestamp(rec.created_at, 'created_at'),
    updatedAt: f.optTimestamp(rec.updated_at, 'updated_at'),
  };
}

export const importer: Importer<CallSummaryInput> = {
  resource: 'call-summaries',
  recordsOf: (body) => f.listIn(body, 'data'),
  parse: parseCallSummary,
  key: callSummaryKey,
  write: writeCallSummaries,
  // the route filters by call time (from/to)
  highWater: (row) => row.callDate.toISOString(),
};
