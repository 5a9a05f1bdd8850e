// The conference-call summary record (GET /delivery/api/v1/summaries):
// docs/rest.md#the-conference-call-summary-record.
import { FISCAL_PERIODS, FISCAL_YEARS } from '../fiscal.js';
import { type RecordTable, STORE_STAMPS } from './table.js';

// One participant of a call (`participants[]`).
export const CALL_PARTICIPANT_FIELDS = [
  { key: 'name', column: 'name', kind: 'text', description: 'Full name.' },
  {
    key: 'role',
    column: 'role',
    kind: 'text',
    description: 'Role on the call.',
    graphql: { description: 'Role on the call, e.g. Chief Executive Officer or Analyst.' },
  },
  { key: 'organization', column: 'organization', kind: 'text', description: 'The company or firm they represent.' },
] as const satisfies RecordTable;

export const CALL_SUMMARY_FIELDS = [
  { key: 'id', column: 'id', kind: 'integer', min: 1, missing: 'stamp', description: 'Record id.', graphql: false },
  { key: 'symbol', column: 'symbol', kind: 'symbol', description: 'Ticker symbol of the company.' },
  { key: 'company_name', column: 'companyName', kind: 'text', description: 'Company name.' },
  { key: 'call_date', column: 'callDate', kind: 'timestamp', description: 'When the call took place.' },
  {
    key: 'fiscal_year',
    column: 'fiscalYear',
    kind: 'integer',
    min: FISCAL_YEARS.min,
    max: FISCAL_YEARS.max,
    description: 'Fiscal year the call reports on.',
  },
  {
    key: 'fiscal_period',
    column: 'fiscalPeriod',
    kind: 'enum',
    values: FISCAL_PERIODS,
    description: 'Fiscal period the call reports on.',
  },
  { key: 'title', column: 'title', kind: 'text', description: 'Title of the call.' },
  { key: 'summary', column: 'summary', kind: 'text', text: 'long', description: 'Summary of what was said.' },
  {
    key: 'key_points',
    column: 'keyPoints',
    kind: 'strings',
    text: 'sentence',
    description: 'The main points, in order.',
  },
  {
    key: 'guidance',
    column: 'guidance',
    kind: 'text',
    text: 'long',
    missing: 'omit',
    description: 'Forward guidance given on the call; absent when none was given.',
    graphql: { description: 'Forward guidance given on the call, if any.' },
  },
  {
    key: 'sentiment_score',
    column: 'sentimentScore',
    kind: 'number',
    min: -1,
    max: 1,
    description: 'Tone of the call, -1 (negative) to 1 (positive).',
    graphql: { description: 'Tone of the call, from -1 (negative) to 1 (positive).' },
  },
  {
    key: 'participants',
    column: 'participants',
    kind: 'objects',
    fields: CALL_PARTICIPANT_FIELDS,
    description: 'Who spoke on the call.',
  },
  ...STORE_STAMPS,
] as const satisfies RecordTable;
