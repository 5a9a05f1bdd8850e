import { exposeRecordFields } from './record-fields.js';
import { CALL_SUMMARY_FIELDS, CALL_PARTICIPANT_FIELDS } from '../domain/records/call-summary.js';
import { builder } from '../builder.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { children } from '../graphql/plan/declare.js';
import {
  callSummariesBySymbol,
  callSummaryPage,
  type CallDateRange,
  type CallParticipant as ParticipantRow,
} from '../services/call-summary.js';
import type { KeysetArgs } from '../services/paging.js';
import type { Security as SecurityRow } from '../services/security.js';
import {
  readRange,
  connection,
  connectionType,
  FiscalPeriodEnum,
  intNodeId,
  keysetArgs,
  pagingArgs,
  type PageSize,
  type PagingInput,
} from './common.js';
import { parseSymbol } from '../domain/symbols.js';
import { Security, securityBySymbol } from './security.js';

export const CALL_SUMMARY_PAGE: PageSize = PAGE_SIZES.records;

const CallParticipant = builder.objectRef<ParticipantRow>('CallParticipant').implement({
  description: 'Someone who spoke on a conference call.',
  fields: (t) => ({
    ...exposeRecordFields(t, CALL_PARTICIPANT_FIELDS),
  }),
});

export const CallSummary = builder.prismaNode('CallSummary', {
  // also reached through node(id): the type checks the entitlement itself
  authScopes: { entitled: 'callSummaries' },
  description: 'A summary of one earnings conference call.',
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  findUnique: (id) => ({ id: intNodeId(id, 'CallSummary') }),
  fields: (t) => ({
    callSummaryId: t.exposeInt('id', { description: 'The record id (REST `id`).' }),
    ...exposeRecordFields(t, CALL_SUMMARY_FIELDS),
    fiscalPeriod: t.expose('fiscalPeriod', {
      type: FiscalPeriodEnum,
      description: 'Fiscal period the call reports on.',
    }),
    keyPoints: t.field({
      type: ['String'],
      description: 'The main points, in order.',
      resolve: (c) => c.keyPoints as string[],
    }),
    participants: t.field({
      type: [CallParticipant],
      description: 'Who spoke on the call.',
      resolve: (c) => c.participants as unknown as ParticipantRow[],
    }),
    security: t.field({
      type: Security,
      nullable: true,
      description: "The company's security; null when the security master does not list the symbol.",
      resolve: (c, _args, ctx) => securityBySymbol(ctx, c.symbol),
    }),
  }),
});

export const CallSummaryConnection = connectionType(CallSummary, 'CallSummaryConnection');

/** Arguments shared by the root `callSummaries` field and the Security edge. */
const pageArgs = {
  ...builder.args((t) => ({
    from: t.field({ type: 'DateTime', description: 'Only calls at or after this time.' }),
    to: t.field({ type: 'DateTime', description: 'Only calls at or before this time.' }),
  })),
  ...pagingArgs(CALL_SUMMARY_PAGE),
};

interface RangePage {
  range: CallDateRange;
  page: KeysetArgs;
}

interface RangeArgs extends PagingInput {
  from?: Date | null;
  to?: Date | null;
}

function rangePage(args: RangeArgs): RangePage {
  return {
    range: readRange(args.from, args.to),
    page: keysetArgs(args, CALL_SUMMARY_PAGE),
  };
}

builder.queryField('callSummaries', (t) =>
  t.field({
    authScopes: { entitled: 'callSummaries' },
    nullable: true,
    type: CallSummaryConnection,
    description: 'Conference-call summaries, newest call first.',
    args: {
      symbol: t.arg.string({ description: 'Only the calls of this ticker symbol (case-insensitive).' }),
      ...pageArgs,
    },
    resolve: async (_root, { symbol, ...args }, ctx) => {
      const { range, page } = rangePage(args);
      const filter = {
        symbol: symbol === null || symbol === undefined ? undefined : parseSymbol(symbol, 'symbol'),
        ...range,
      };
      return connection(await callSummaryPage(ctx.db, filter, page));
    },
  }),
);

builder.prismaObjectFields(Security, (t) => ({
  callSummaries: t.field({
    authScopes: { entitled: 'callSummaries' },
    nullable: true,
    type: CallSummaryConnection,
    description: "Summaries of this company's conference calls, newest first.",
    args: pageArgs,
    ...children<SecurityRow, RangeArgs>('symbol', (args) => {
      const { range, page } = rangePage(args);
      return { list: callSummariesBySymbol(range), args: page };
    }),
  }),
}));
