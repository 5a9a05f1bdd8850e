// Massive's exchange record (GET /v3/reference/exchanges), its keys as Massive spells and orders
// them; the optional keys are absent (never null) where the exchange has none.
import type { AssetClass, Locale } from '../../../generated/prisma/enums.js';
import type { RecordTable } from './table.js';

/**
 * Massive's documented values of `asset_class` and `locale` (GET /v3/reference/exchanges): the one
 * rule of the filters (REST parameters, GraphQL enums) and of an imported record's fields.
 */
export const ASSET_CLASSES = ['stocks', 'options', 'crypto', 'fx', 'futures'] as const satisfies readonly AssetClass[];
export const LOCALES = ['us', 'global'] as const satisfies readonly Locale[];

/** An ISO 10383 MIC: four letters or digits (24X's is 24EQ). */
const MIC = { pattern: /^[A-Z0-9]{4}$/, rule: 'a MIC of four letters or digits' } as const;

export const EXCHANGE_FIELDS = [
  {
    key: 'acronym',
    column: 'acronym',
    kind: 'text',
    missing: 'omit',
    description: 'The abbreviation the exchange is commonly known by.',
    graphql: { description: 'The abbreviation it is commonly known by.' },
  },
  {
    key: 'asset_class',
    column: 'assetClass',
    kind: 'enum',
    values: ASSET_CLASSES,
    description: 'The group of instruments it trades.',
  },
  {
    key: 'id',
    column: 'id',
    kind: 'integer',
    min: 1,
    description: "Massive's identifier of the exchange: the `exchange` of a trade, the `ask_exchange` of a quote.",
    graphql: false,
  },
  { key: 'locale', column: 'locale', kind: 'enum', values: LOCALES, description: 'Where it is.' },
  {
    key: 'mic',
    column: 'mic',
    kind: 'text',
    ...MIC,
    missing: 'omit',
    description: 'Its ISO 10383 Market Identifier Code.',
  },
  { key: 'name', column: 'name', kind: 'text', nonEmpty: true, description: 'Its name.' },
  {
    key: 'operating_mic',
    column: 'operatingMic',
    kind: 'text',
    ...MIC,
    missing: 'omit',
    description: 'The MIC of the entity that operates it.',
    graphql: { description: 'The MIC of the entity that operates it (REST `operating_mic`).' },
  },
  {
    key: 'participant_id',
    column: 'participantId',
    kind: 'text',
    missing: 'omit',
    description: 'The id the SIPs give it.',
    graphql: { description: 'The id the SIPs give it (REST `participant_id`).' },
  },
  // exchange, TRF, SIP as Massive documents it, and ORF, which it answers too: kept as given
  {
    key: 'type',
    column: 'type',
    kind: 'text',
    nonEmpty: true,
    description: 'What kind of venue it is: exchange, TRF (trade reporting facility), SIP, or ORF.',
  },
  // a String in the graph, as Massive gives it: the URL scalar would add a slash to a bare host
  { key: 'url', column: 'url', kind: 'text', text: 'url', missing: 'omit', description: 'Its web site.' },
] as const satisfies RecordTable;
