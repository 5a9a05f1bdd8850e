// Read by the Prisma CLI only. Offline the CLI's migrate commands cannot run (no schema engine);
// use `npm run migrate` / `npm run migrate:create` instead (docs/architecture.md#prisma-offline).
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
