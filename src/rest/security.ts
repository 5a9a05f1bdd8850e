// The legacy security document (GET /search/api/v1/securities's hits, rest/security-search.ts):
// flat dotted keys, each with its column of the security master (domain/records/security.ts).
import { SECURITY_FIELDS } from '../domain/records/security.js';
import type { Security } from '../services/security.js';
import { recordSchema, recordShaper } from './record-table.js';

/** The legacy security document: flat dotted keys; a value the store lacks is left out, except isin_history (nullable: null). */
export const SECURITY_DOCUMENT_SCHEMA = recordSchema(SECURITY_FIELDS);

export const securityDocument: (s: Security) => Record<string, unknown> = recordShaper(SECURITY_FIELDS);
