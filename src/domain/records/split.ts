// Massive's split record (GET /v3/reference/splits), its keys as Massive spells and orders them.
import type { RecordTable } from './table.js';

export const SPLIT_FIELDS = [
  {
    key: 'execution_date',
    column: 'executionDate',
    kind: 'date',
    description: 'The first exchange day the shares traded split, yyyy-mm-dd.',
  },
  {
    key: 'id',
    column: 'id',
    kind: 'text',
    nonEmpty: true,
    description: "Massive's identifier of the split.",
    graphql: false,
  },
  // positive: the importer refuses 0 (a ratio divides by both), as ingest/resources/split.ts says
  {
    key: 'split_from',
    column: 'splitFrom',
    kind: 'number',
    description: 'The shares before: in a 2-for-1 split, 1; in a 1-for-10 reverse split, 10.',
  },
  {
    key: 'split_to',
    column: 'splitTo',
    kind: 'number',
    description: 'The shares after: in a 2-for-1 split, 2; in a 1-for-10 reverse split, 1.',
  },
  {
    key: 'ticker',
    column: 'ticker',
    kind: 'symbol',
    description: 'The symbol the security traded under on the execution date.',
  },
] as const satisfies RecordTable;
