// Curated news: items with the securities they concern and the records they link to.
import { defineResource } from './manifest.js';

export const news = defineResource({
  singular: 'news',
  plural: 'news',
  type: 'NewsItem',
  access: [{ tier: 'free', listed: 5, words: 'curated news' }],
  parents: ['security'],
  textKinds: { 'NewsItem.associatedTranscripts': 'json' },
  listKinds: {
    'NewsItem.associatedPressReleaseIds': 'children',
    'NewsItem.associatedPressReleases': 'children',
    'NewsItem.associatedRatingIds': 'children',
    'NewsItem.associatedRatings': 'children',
    'NewsItem.securities': 'children',
  },
  tables: [
    { model: 'NewsItem', sample: 'newsItems' },
    { model: 'NewsSecurity', sample: 'newsSecurities' },
  ],
  sync: { pages: 'numbered', path: '/news/api/v1/news', perSymbol: true },
});
