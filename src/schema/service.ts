import { builder } from '../builder.js';

const ServiceInfo = builder.objectRef<{ version: string; database: string }>('ServiceInfo').implement({
  description: 'Facts about this gateway instance.',
  fields: (t) => ({
    version: t.exposeString('version', { description: 'The gateway version (package.json).' }),
    database: t.exposeString('database', {
      description:
        'The database kind behind this instance: always postgresql (the embedded cluster or an external server).',
    }),
  }),
});

builder.queryField('serviceInfo', (t) =>
  t.field({
    type: ServiceInfo,
    description: 'Which gateway version and database kind answer this request.',
    resolve: (_root, _args, ctx) => ({ version: ctx.config.version, database: 'postgresql' }),
  }),
);
