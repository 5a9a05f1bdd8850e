import { exposeRecordFields } from './record-fields.js';
import { SPLIT_FIELDS } from '../domain/records/split.js';
import { builder } from '../builder.js';
import { splitPage, splitsByTicker } from '../services/split.js';
import { connectionType } from './common.js';
import { referenceListFields, securityOfTicker } from './reference-list.js';

export const Split = builder.prismaNode('Split', {
  description:
    "A stock split, as Massive's GET /v3/reference/splits lists it: `splitFrom` shares became `splitTo` on `executionDate`. Prices are quoted as traded (raw): divide those before the execution date by splitTo / splitFrom to compare them with later ones.",
  // node(id) of a deleted or unknown record is null, not an error
  nullable: true,
  id: { field: 'id' },
  fields: (t) => ({
    splitId: t.exposeString('id', { description: "Massive's id of the split (REST field `id`)." }),
    ...exposeRecordFields(t, SPLIT_FIELDS),
    security: t.field(securityOfTicker()),
  }),
});

export const SplitConnection = connectionType(Split, 'SplitConnection');

referenceListFields({
  name: 'splits',
  connection: SplitConnection,
  description: 'Stock splits, newest first by execution date (REST GET /stocks/v3/reference/splits).',
  securityDescription:
    "Splits of this security's symbol, newest first by execution date (those recorded under a symbol it had before are listed under that symbol).",
  args: {
    ticker: 'Only the splits of this ticker.',
    from: 'Only splits executed on this day or later.',
    to: 'Only splits executed on this day or earlier.',
  },
  ownArgs: (arg) => ({
    reverseSplit: arg.boolean({
      description: 'true: only reverse splits (splitFrom greater than splitTo); false: only the others.',
    }),
  }),
  dateKey: 'executionDate',
  page: splitPage,
  byTicker: splitsByTicker,
});
