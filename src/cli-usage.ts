// The CLI's usage text (src/cli.ts prints it for --help and a usage mistake), kept apart from the
// commands so each file stays one thing.
import { DEFAULT_BATCH_SIZE } from './ingest/import-stream.js';
import { IMPORT_RESOURCES } from './ingest/importer.js';

export const USAGE = `usage: npm run cli -- <command> [options]
commands:
  migrate                                   apply pending migrations (DATABASE_URL, or the embedded cluster)
  seed [--scale N] [--seed N] [--securities N]
                                            replace all market data with the deterministic sample set
                                            (accounts and API keys stay); --scale multiplies trades and quotes
  users create --email E --tier free|pro|enterprise [--username U] (--password P | --password-stdin)
  users set-tier --email E --tier T
  users disable --email E [--enable]         a disabled user can neither log in nor use keys or tokens
  apikeys create --user E --name N          prints the new key once; only its hash is stored
                                            (a user holds at most API_KEYS_PER_USER active keys)
  apikeys list [--user E]
  apikeys revoke --id KEY_ID
  import <resource> <file|-> [--strict] [--batch N] [--follow] [--symbol S] [--verbose]
                                            load records in the legacy JSON shapes: a JSON array, NDJSON
                                            (a record or a whole REST response body per line), or one
                                            REST response body; - reads stdin. Upserts by natural key,
                                            one transaction per batch of N (default ${DEFAULT_BATCH_SIZE}).
                                            resources: ${IMPORT_RESOURCES.join(', ')}
                                            --strict   stop at the first rejected record, before its batch
                                            --follow   stdin keeps coming (tail -f): write every 200 ms too
                                            --symbol   trades/quotes: the symbol of records that name none
                                            --verbose  a line for every rejected record (by default the
                                                       first of each reason, then a count per reason)
                                            exit code 1 when a record was rejected; Ctrl-C writes what
                                            was read (exit 0 with --follow, 130 without)
  sync --from URL --apikey KEY [--resources a,b] [--since DATE]
                                            pull from a service that speaks the legacy REST paths;
                                            incremental from the last run's marks (docs/data.md)
  sync status [--from URL]                  the marks each upstream reached
  bars rebuild [--symbol S] [--from DATE] [--to DATE]
                                            recompute the minute and day bars of the stored trades
                                            (exchange dates, inclusive; all when absent), and each
                                            symbol's snapshot, one transaction per symbol; imported
                                            bars without trades stay
Every command migrates the database first. Changes reach running servers within AUTH_CACHE_SECONDS (default 5).`;
