// Press releases: a wire's releases with their tickers and securities.
import { defineResource } from './manifest.js';

export const pressRelease = defineResource({
  singular: 'press release',
  plural: 'press releases',
  access: [{ tier: 'pro', listed: 7 }],
  parents: ['security'],
  textKinds: {
    'PressRelease.categories': 'json',
    'PressRelease.externalLinks': 'url',
    'PressRelease.mediaAssets': 'json',
    'PressRelease.raw': 'json',
  },
  listKinds: {
    'PressRelease.contacts': 'children',
    'PressRelease.exchanges': 'children',
    'PressRelease.externalLinks': 'children',
    'PressRelease.keywords': 'children',
    'PressRelease.securities': 'children',
    'PressRelease.tickers': 'children',
  },
  tables: [
    { model: 'PressRelease', sample: 'pressReleases' },
    { model: 'PressReleaseTicker', sample: 'pressReleaseTickers' },
    { model: 'PressReleaseSecurity', sample: 'pressReleaseSecurities' },
  ],
  sync: { pages: 'marked', path: '/streamhive/api/v1/data', markField: 'PublishTime', from: 'iso' },
});
