// Read by the Prisma CLI only. Offline the CLI's migrate commands cannot run (no schema engine);
// use `npm run migrate` / `npm run migrate:create` instead (see README).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
