// Massive's reference lists of a ticker's records (splits, dividends) the GraphQL way: a record's
// `security`, the root list filtered by ticker and a date range, and the list of a security, all
// alike; a resource's module declares only its type, its own arguments and its filter.
import type { ArgBuilder, InputFieldMap } from '@pothos/core';
import { builder } from '../builder.js';
import type { Context } from '../context.js';
import { PAGE_SIZES } from '../domain/limits.js';
import { parseSymbol } from '../domain/symbols.js';
import { AppError } from '../errors.js';
import { children } from '../graphql/plan/declare.js';
import type { KeyedList, KeysetArgs, Page } from '../services/paging.js';
import type { Security as SecurityRow } from '../services/security.js';
import {
  connection,
  type connectionType,
  keysetArgs,
  pagingArgs,
  SYMBOL_DESCRIPTION,
  type PagingInput,
} from './common.js';
import { Security, securityBySymbol } from './security.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

/** A GraphQL page of a reference list holds as many records as any record list's. */
export const REFERENCE_PAGE = PAGE_SIZES.records;

/** A ticker argument, upper-cased by the symbol rule; a BAD_REQUEST naming `argument` otherwise. */
export function tickerArg(ticker: string | null | undefined, argument = 'ticker'): string | undefined {
  return ticker === null || ticker === undefined ? undefined : parseSymbol(ticker, argument);
}

/** `from` and `to` as inclusive bounds on a date column; `from` after `to` selects nothing by construction, so it is refused. */
export function dateBounds(from: string | null | undefined, to: string | null | undefined) {
  if (from && to && from > to) throw new AppError('BAD_REQUEST', `argument "from" (${from}) is after "to" (${to})`);
  return { gte: from ?? undefined, lte: to ?? undefined };
}

/** A record's `security` (the options of its `t.field`): the master's record of its ticker, through the request's one loader. */
export function securityOfTicker() {
  return {
    type: Security,
    nullable: true,
    description:
      'The security-master record that has the ticker now (its first listing); null when the master does not hold it.',
    resolve: (r: { ticker: string }, _args: unknown, ctx: Context) => securityBySymbol(ctx, r.ticker),
  } as const;
}

/** What a reference list declares of its own. */
export interface ReferenceList<Row, Filter> {
  /** The root query field, the Security field and the entitlement they need. */
  name: 'splits' | 'dividends';
  connection: ReturnType<typeof connectionType>;
  description: string;
  securityDescription: string;
  /** The descriptions of the `ticker`, `from` and `to` arguments. */
  args: { ticker: string; from: string; to: string };
  /** The list's own arguments, beside those. */
  ownArgs: (t: ArgBuilder<Types>) => InputFieldMap;
  /** The filter's key of the bounds `from` and `to` give; `ticker` and the list's own arguments are keys of the same name. */
  dateKey: keyof Filter & string;
  page(db: Context['db'], filter: Filter, args: KeysetArgs): Promise<Page<Row>>;
  byTicker(): KeyedList<Row>;
}

interface ListArgs extends PagingInput {
  ticker?: string | null;
  from?: string | null;
  to?: string | null;
}

/** The root query field of a reference list and the field of a security's list. */
export function referenceListFields<Row, Filter>(list: ReferenceList<Row, Filter>): void {
  const pageArgs = pagingArgs(REFERENCE_PAGE);
  builder.queryField(list.name, (t) =>
    t.field({
      authScopes: { entitled: list.name },
      nullable: true,
      type: list.connection,
      description: list.description,
      args: {
        ticker: t.arg.string({ description: `${list.args.ticker} ${SYMBOL_DESCRIPTION}` }),
        from: t.arg({ type: 'Date', description: list.args.from }),
        to: t.arg({ type: 'Date', description: list.args.to }),
        ...list.ownArgs(t.arg),
        ...pageArgs,
      },
      resolve: async (_root, args, ctx) => {
        const { ticker, from, to, first, after, last, before, ...own } = args as ListArgs;
        const symbol = tickerArg(ticker);
        const filter = {
          ticker: symbol === undefined ? undefined : { eq: symbol },
          [list.dateKey]: dateBounds(from, to),
          // an argument given as null filters nothing, as one left out
          ...Object.fromEntries(Object.entries(own).map(([k, v]) => [k, v ?? undefined])),
        } as Filter;
        const page = await list.page(ctx.db, filter, keysetArgs({ first, after, last, before }, REFERENCE_PAGE));
        return connection(page);
      },
    }),
  );
  builder.prismaObjectField(Security, list.name, (t) =>
    t.field({
      authScopes: { entitled: list.name },
      nullable: true,
      type: list.connection,
      description: list.securityDescription,
      args: pageArgs,
      ...children<SecurityRow, PagingInput>('symbol', (args) => ({
        list: list.byTicker(),
        args: keysetArgs(args, REFERENCE_PAGE),
      })),
    }),
  );
}
