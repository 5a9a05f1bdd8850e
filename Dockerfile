# Production image of the gateway: `docker build -t market-data-gateway .`
# Secrets (JWT_SECRET, DATABASE_URL's password, METRICS_TOKEN) come from the environment at run
# time; none is baked in. So does PUBLIC_URL, where clients reach the service, which production
# requires (the gateway refuses to start without it).

# --- build: every dependency, the generated Prisma clients, the OCR model, the typed documents and
# the page at /app (npm ci's postinstall)
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
# what the postinstall's codegen and the page at /app are made of (scripts/generate.mjs)
COPY schema.graphql ./
COPY operations ./operations
COPY web ./web
RUN npm ci --no-audit --no-fund
# then only what runs: dev dependencies (vitest, typescript ...) go
RUN npm prune --omit=dev --no-audit --no-fund
COPY . .
# the allow-list of persisted operations is optional; the gateway reads {} as "none"
RUN test -f persisted-operations.json || echo '{}' > persisted-operations.json

# --- runtime: Node and what the server reads, owned by root and read-only to the user that runs it
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=4000 HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json /app/tsconfig.json /app/persisted-operations.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/generated ./generated
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/lexicon ./lexicon
COPY --from=build /app/src ./src
# DATA_DIR: the embedded PostgreSQL cluster when DATABASE_URL is unset (run as this user); the one place the gateway may write
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself as PID 1 (not npm): SIGTERM reaches the server, which drains (SHUTDOWN_TIMEOUT_MS) and exits
STOPSIGNAL SIGTERM
# the heap flags of `npm start` (package.json): room for COST_IN_FLIGHT's worth of answers being built (docs/security.md)
CMD ["node", "--max-old-space-size=512", "--max-semi-space-size=32", "--import", "tsx", "src/server.ts"]
