// Conditions: the trade and quote condition codes of Massive's GET /v3/reference/conditions, with
// the update rules that decide which trades count in a bar. Public reference data every tier
// reads (schema/condition.ts, rest/condition.ts); no table: the rows are domain/conditions.ts.
import { defineResource } from './manifest.js';

export const condition = defineResource({
  singular: 'condition',
  plural: 'conditions',
  // after the exchanges the codes are read beside, before the daily bars they decide
  access: [{ tier: 'free', listed: 12.1, words: 'condition codes' }],
});
