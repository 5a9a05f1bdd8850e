// Imports each resource module for its side effects (registering types), then builds the schema.
import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from '../builder.js';
import './service.js';
import './session.js';
import './account.js';
import './security.js';
import './logo.js';
import './balance-sheet.js';
import './fundamental.js';
import './press-release.js';
import './rating.js';
import './call-summary.js';
import './news.js';
import './trade.js';
import './quote.js';
import './ocr.js';
import './node.js';

builder.queryType({ description: 'The root of every read.' });
builder.subscriptionType({ description: 'Live data: each record as it is stored, over Server-Sent Events or WebSocket (graphql-ws) at /graphql.' });

export const schema = builder.toSchema();

/** The SDL committed as schema.graphql: sorted, so diffs show real changes only. */
export function printedSchema(): string {
  return printSchema(lexicographicSortSchema(schema)) + '\n';
}
