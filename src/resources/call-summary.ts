// Call summaries: an earnings call's summary, guidance, key points and participants.
import { defineResource } from './manifest.js';

export const callSummary = defineResource({
  singular: 'call summary',
  plural: 'call summaries',
  access: [{ tier: 'pro', listed: 8 }],
  parents: ['security'],
  textKinds: { 'CallSummary.keyPoints': 'sentence' },
  listKinds: { 'CallSummary.keyPoints': 'children', 'CallSummary.participants': 'children' },
  tables: [{ model: 'CallSummary', sample: 'callSummaries' }],
  sync: { pages: 'marked', path: '/delivery/api/v1/summaries', markField: 'call_date', from: 'iso' },
});
