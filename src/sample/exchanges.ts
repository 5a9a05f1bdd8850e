/**
 * The US equity venues of Massive's GET /v3/reference/exchanges?asset_class=stocks&locale=us:
 * the exchanges, the FINRA facilities and the two SIPs, with Massive's ids and the participant
 * ids the SIPs give them. Public reference data, the same for every seed; Massive's record leaves
 * out a key an exchange has no value for, stored here as null. Earlier answers gave all four FINRA
 * facilities id 4 (participant D); Massive now numbers the TRFs 201 to 203, so the id is a key.
 */
import type { Prisma } from '../../generated/prisma/client.js';

type Row = Prisma.ExchangeCreateManyInput & { id: number };

/** [id, type, name, acronym, mic, operating_mic, participant_id, url] */
const VENUES: readonly (readonly [
  number,
  string,
  string,
  string | null,
  string | null,
  string,
  string | null,
  string,
])[] = [
  [1, 'exchange', 'NYSE American, LLC', 'AMEX', 'XASE', 'XNYS', 'A', 'https://www.nyse.com/markets/nyse-american'],
  [
    2,
    'exchange',
    'Nasdaq Texas, Inc.',
    null,
    'XBOS',
    'XNAS',
    'B',
    'https://www.nasdaq.com/solutions/nasdaq-bx-stock-market',
  ],
  [3, 'exchange', 'NYSE National, Inc.', 'NSX', 'XCIS', 'XNYS', 'C', 'https://www.nyse.com/markets/nyse-national'],
  [4, 'TRF', 'FINRA Alternative Display Facility', null, 'XADF', 'FINR', 'D', 'https://www.finra.org'],
  [5, 'SIP', 'Unlisted Trading Privileges', null, null, 'XNAS', 'E', 'https://www.utpplan.com'],
  [
    6,
    'TRF',
    'International Securities Exchange, LLC - Stocks',
    null,
    'XISE',
    'XNAS',
    'I',
    'https://nasdaq.com/solutions/nasdaq-ise',
  ],
  [7, 'exchange', 'Cboe EDGA', null, 'EDGA', 'XCBO', 'J', 'https://www.cboe.com/us/equities'],
  [8, 'exchange', 'Cboe EDGX', null, 'EDGX', 'XCBO', 'K', 'https://www.cboe.com/us/equities'],
  [9, 'exchange', 'NYSE Texas, Inc.', null, 'XCHI', 'XNYS', 'M', 'https://www.nyse.com/markets/nyse-texas'],
  [10, 'exchange', 'New York Stock Exchange', null, 'XNYS', 'XNYS', 'N', 'https://www.nyse.com'],
  [11, 'exchange', 'NYSE Arca, Inc.', null, 'ARCX', 'XNYS', 'P', 'https://www.nyse.com/markets/nyse-arca'],
  [12, 'exchange', 'Nasdaq', null, 'XNAS', 'XNAS', 'T', 'https://www.nasdaq.com'],
  [13, 'SIP', 'Consolidated Tape Association', null, null, 'XNYS', 'S', 'https://www.nyse.com/data/cta'],
  [14, 'exchange', 'Long-Term Stock Exchange', null, 'LTSE', 'LTSE', 'L', 'https://www.ltse.com'],
  [15, 'exchange', 'Investors Exchange', null, 'IEXG', 'IEXG', 'V', 'https://www.iextrading.com'],
  [16, 'TRF', 'Cboe Stock Exchange', null, 'CBSX', 'XCBO', 'W', 'https://www.cboe.com'],
  [
    17,
    'exchange',
    'Nasdaq Philadelphia Exchange LLC',
    null,
    'XPHL',
    'XNAS',
    'X',
    'https://www.nasdaq.com/solutions/nasdaq-phlx',
  ],
  [18, 'exchange', 'Cboe BYX', null, 'BATY', 'XCBO', 'Y', 'https://www.cboe.com/us/equities'],
  [19, 'exchange', 'Cboe BZX', null, 'BATS', 'XCBO', 'Z', 'https://www.cboe.com/us/equities'],
  [20, 'exchange', 'MIAX Pearl', null, 'EPRL', 'MIHI', 'H', 'https://www.miaxoptions.com/alerts/pearl-equities'],
  [21, 'exchange', 'Members Exchange', null, 'MEMX', 'MEMX', 'U', 'https://www.memx.com'],
  [22, 'exchange', '24X National Exchange LLC', '24X', '24EQ', '24EQ', 'G', 'https://24exchange.com/'],
  [23, 'exchange', 'Texas Stock Exchange LLC', 'TXSE', 'TXSE', 'TXSE', 'F', 'https://txse.com/'],
  [
    62,
    'ORF',
    'OTC Equity Security',
    null,
    'OOTC',
    'FINR',
    null,
    'https://www.finra.org/filing-reporting/over-the-counter-reporting-facility-orf',
  ],
  [201, 'TRF', 'FINRA NYSE TRF', null, 'FINY', 'FINR', null, 'https://www.finra.org'],
  [202, 'TRF', 'FINRA Nasdaq TRF Carteret', null, 'FINN', 'FINR', null, 'https://www.finra.org'],
  [203, 'TRF', 'FINRA Nasdaq TRF Chicago', null, 'FINC', 'FINR', null, 'https://www.finra.org'],
];

export function buildExchanges(): Row[] {
  return VENUES.map(([id, type, name, acronym, mic, operatingMic, participantId, url]) => ({
    id,
    type,
    assetClass: 'stocks',
    locale: 'us',
    name,
    acronym,
    mic,
    operatingMic,
    participantId,
    url,
  }));
}
