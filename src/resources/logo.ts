// Logos: a company's images and the securities they stand for (schema/logo.ts, rest/logo.ts).
import { defineResource } from './manifest.js';

export const logo = defineResource({
  singular: 'logo',
  plural: 'logos',
  access: [{ tier: 'free', listed: 0 }],
  parents: ['security'],
  cacheable: ['LogoImage', 'LogoPng', 'LogoSecurityInfo'],
  textKinds: { 'LogoImage.url': 'url', 'LogoPng.url': 'url' },
  listKinds: { 'Logo.securities': 'children', 'Logo.securityInfo': 'children' },
  tables: [
    { model: 'Logo', sample: 'logos' },
    { model: 'LogoSecurityInfo', sample: 'logoSecurityInfo' },
  ],
  sync: { pages: 'numbered', path: '/api/v1/logos' },
});
