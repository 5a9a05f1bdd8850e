/**
 * The company catalog: 50 invented listed companies, then synthetic ones for larger sets. A company
 * is a pure function of (seed, index), and every other resource derives from it.
 */
import { round } from './amounts.js';
import { EXCHANGES, INDUSTRIES, INDUSTRY_KEYS, type Exchange, type Industry, type IndustryKey } from './industries.js';
import {
  LETTERS,
  cikOf,
  codeOffsets,
  cusipOf,
  encode,
  figiOf,
  isinOf,
  permidOf,
  scatter,
  type CodeOffsets,
} from './identifiers.js';
import { rngFor } from './random.js';
import { isoDate } from './time.js';

/** Invented companies: [ticker, name, industry, mic, street, city, state, zip, area code]. */
type Listing = readonly [string, string, IndustryKey, 'XNAS' | 'XNYS', string, string, string, string, string];

const LISTINGS: readonly Listing[] = [
  [
    'NVLX',
    'Novalux Semiconductor Corp.',
    'semis',
    'XNAS',
    '2200 Mission Park Dr.',
    'Santa Clara',
    'CA',
    '95054',
    '408',
  ],
  ['ORBT', 'Orbitrax Aerospace Inc.', 'aerospace', 'XNYS', '400 Discovery Way', 'Huntsville', 'AL', '35806', '256'],
  ['HLCN', 'Halcyon Biotherapeutics Inc.', 'pharma', 'XNAS', '75 Binney Row', 'Cambridge', 'MA', '02142', '617'],
  ['QNTR', 'Quantiro Software Inc.', 'software', 'XNAS', '901 Congress Terrace', 'Austin', 'TX', '78701', '512'],
  ['BRKW', 'Brookwell Bancorp', 'bank', 'XNYS', '120 Tryon Commons', 'Charlotte', 'NC', '28202', '704'],
  ['TRLN', 'Trellin Foods Co.', 'food', 'XNYS', '3300 Harvest Ln.', 'Minneapolis', 'MN', '55402', '612'],
  ['GRDX', 'Gridmark Energy Holdings Inc.', 'utility', 'XNYS', '1 Gridmark Plaza', 'Columbus', 'OH', '43215', '614'],
  ['PXMD', 'Pixamed Devices Inc.', 'medtech', 'XNAS', '18 Technology Cir.', 'Irvine', 'CA', '92618', '949'],
  ['VNTA', 'Ventara Motors Inc.', 'autos', 'XNAS', '5500 Sierra Flats Rd.', 'Reno', 'NV', '89502', '775'],
  ['CRSF', 'Crestforge Industries Inc.', 'machinery', 'XNYS', '800 Foundry St.', 'Milwaukee', 'WI', '53204', '414'],
  ['SLMI', 'Starlume Interactive Inc.', 'media', 'XNAS', '6100 Sunset Gower Ave.', 'Los Angeles', 'CA', '90028', '323'],
  ['PTRX', 'Petrarex Energy Corp.', 'energy', 'XNYS', '1450 Bayou Center', 'Houston', 'TX', '77002', '713'],
  ['MRQL', 'Marquelle Commerce Inc.', 'retail', 'XNAS', '2100 Harbor Steps', 'Seattle', 'WA', '98101', '206'],
  ['AXLT', 'Axelt Computing Inc.', 'hardware', 'XNAS', '350 Orchard Pkwy.', 'San Jose', 'CA', '95134', '408'],
  [
    'CDRN',
    'Cedarine Asset Management Inc.',
    'assetManagement',
    'XNYS',
    '60 Pemberton Sq.',
    'Boston',
    'MA',
    '02108',
    '617',
  ],
  ['KYRX', 'Kyronix Microsystems Inc.', 'semis', 'XNAS', '4000 Ocotillo Rd.', 'Chandler', 'AZ', '85226', '480'],
  ['LMNQ', 'Luminiq Software Corp.', 'software', 'XNAS', '1700 Larimer Row', 'Denver', 'CO', '80202', '303'],
  ['OSTL', 'Ostrel Pharmaceuticals Inc.', 'pharma', 'XNYS', '100 College Rd. West', 'Princeton', 'NJ', '08540', '609'],
  ['FHFC', 'Fernhollow Financial Corp.', 'bank', 'XNAS', '425 Walnut Row', 'Cincinnati', 'OH', '45202', '513'],
  ['BLSN', 'Bellstone Oil & Gas Inc.', 'energy', 'XNYS', '500 Permian Ave.', 'Midland', 'TX', '79701', '432'],
  ['ZPHR', 'Zephyra Aerostructures Inc.', 'aerospace', 'XNYS', '3900 Airfield Blvd.', 'Wichita', 'KS', '67209', '316'],
  ['TDRA', 'Tindra Medical Inc.', 'medtech', 'XNAS', '9800 Lakeshore Pkwy.', 'Plymouth', 'MN', '55447', '763'],
  ['QVLT', 'Quavelt Cloud Inc.', 'software', 'XNAS', '210 Glenwood Commons', 'Raleigh', 'NC', '27603', '919'],
  ['HRBN', 'Harborne Utilities Corp.', 'utility', 'XNYS', '700 Canal View', 'Richmond', 'VA', '23219', '804'],
  ['NXGA', 'Nexagra Foods Inc.', 'food', 'XNAS', '1200 Prairie Gate', 'Omaha', 'NE', '68102', '402'],
  ['DRFT', 'Driftwave Media Inc.', 'media', 'XNAS', '88 Hudson Yards Walk', 'New York', 'NY', '10001', '212'],
  ['ARKN', 'Arkenna Robotics Corp.', 'machinery', 'XNAS', '2 Allegheny Works', 'Pittsburgh', 'PA', '15222', '412'],
  ['CLVX', 'Clovix Therapeutics Inc.', 'pharma', 'XNAS', '10300 Torrey Mesa', 'San Diego', 'CA', '92121', '858'],
  ['SMRL', 'Semiral Microdevices Inc.', 'semis', 'XNAS', '8000 Foothill Tech Dr.', 'Boise', 'ID', '83706', '208'],
  ['WVRT', 'Wavert Networks Inc.', 'hardware', 'XNYS', '4200 Research Commons', 'Durham', 'NC', '27703', '919'],
  [
    'PLVX',
    'Palavex Capital Group Inc.',
    'assetManagement',
    'XNYS',
    '745 Lexington Crossing',
    'New York',
    'NY',
    '10022',
    '212',
  ],
  ['ELVR', 'Elvora Automotive Inc.', 'autos', 'XNYS', '1 Riverfront Motorway', 'Detroit', 'MI', '48226', '313'],
  ['MSWK', 'Mosswick Home Goods Inc.', 'retail', 'XNYS', '3500 Peachtree Landing', 'Atlanta', 'GA', '30326', '404'],
  [
    'TRVD',
    'Torvex Defense Systems Inc.',
    'aerospace',
    'XNYS',
    '1100 Crystal Ridge Dr.',
    'Arlington',
    'VA',
    '22202',
    '703',
  ],
  ['BNQT', 'Bonquet Beverages Inc.', 'food', 'XNYS', '600 Distillery Row', 'Louisville', 'KY', '40202', '502'],
  ['CYRA', 'Cyralis Data Inc.', 'software', 'XNAS', '150 Wasatch Blvd.', 'Salt Lake City', 'UT', '84111', '801'],
  ['FLXP', 'Fluxen Power Corp.', 'utility', 'XNAS', '2400 Camelback Sq.', 'Phoenix', 'AZ', '85016', '602'],
  [
    'GLVR',
    'Galvira Biosciences Inc.',
    'pharma',
    'XNAS',
    '700 Gateway Bluff',
    'South San Francisco',
    'CA',
    '94080',
    '650',
  ],
  ['OPVN', 'Optivane Surgical Inc.', 'medtech', 'XNYS', '5100 Poplar Commons', 'Memphis', 'TN', '38117', '901'],
  ['RDGB', 'Redgrove Bancshares Inc.', 'bank', 'XNYS', '1900 Vulcan Sq.', 'Birmingham', 'AL', '35203', '205'],
  ['SPWD', 'Sparrowind Energy Inc.', 'energy', 'XNAS', '101 Prairie Tower', 'Oklahoma City', 'OK', '73102', '405'],
  ['VLTS', 'Veltaris Storage Systems Inc.', 'hardware', 'XNAS', '1600 Flatiron Park', 'Longmont', 'CO', '80501', '303'],
  ['MNTX', 'Mentrix Streaming Inc.', 'media', 'XNYS', '3000 Olive Studio Way', 'Burbank', 'CA', '91505', '818'],
  [
    'KLDN',
    'Kelderon Machinery Corp.',
    'machinery',
    'XNYS',
    '400 Cedar River Pkwy.',
    'Cedar Rapids',
    'IA',
    '52401',
    '319',
  ],
  ['PRMO', 'Prismora Optics Inc.', 'semis', 'XNYS', '25 Genesee Lightworks', 'Rochester', 'NY', '14604', '585'],
  [
    'TLNX',
    'Talonix Security Software Inc.',
    'software',
    'XNAS',
    '11900 Sunrise Valley Ct.',
    'Reston',
    'VA',
    '20191',
    '703',
  ],
  ['AMBL', 'Amberlane Outfitters Inc.', 'retail', 'XNAS', '900 Pearl District Way', 'Portland', 'OR', '97209', '503'],
  ['HRVL', 'Harvell Savings Bancorp', 'bank', 'XNAS', '280 Asylum Hill Rd.', 'Hartford', 'CT', '06103', '860'],
  ['CNDL', 'Cindrel Motors Corp.', 'autos', 'XNAS', '700 Riverbend Assembly Dr.', 'Chattanooga', 'TN', '37402', '423'],
  ['ZNTR', 'Zenthera Pharma Inc.', 'pharma', 'XNAS', '1 Canal Research Sq.', 'Indianapolis', 'IN', '46204', '317'],
];
const LISTED_TICKERS = new Set(LISTINGS.map((l) => l[0]));
/** Companies with a second share class, which some feeds list next to the main ticker. */
const DUAL_CLASS = new Set(['DRFT', 'BNQT', 'PLVX']);
/** Listings that are no longer active (acquired / delisted), to exercise the status fields. */
const INACTIVE = new Set(['HRVL', 'CNDL']);
/** Companies with a former ISIN (re-domiciled or reorganized). */
const ISIN_CHANGED = new Set(['ORBT', 'GRDX', 'MNTX']);

/** Financial statements, press releases, ratings ... exist for this many companies at most. */
export const COVERED_COMPANIES = 50;

const NAME_HEADS = [
  'Arvo',
  'Bel',
  'Cor',
  'Dal',
  'Evo',
  'Fen',
  'Gal',
  'Hex',
  'Ilo',
  'Jor',
  'Kal',
  'Lum',
  'Mer',
  'Nor',
  'Obel',
  'Pral',
  'Quin',
  'Ros',
  'Sil',
  'Tav',
  'Ulm',
  'Var',
  'Wex',
  'Xan',
  'Yor',
  'Zel',
];
const NAME_TAILS = ['ant', 'ara', 'ecta', 'entis', 'ica', 'ion', 'ium', 'ova', 'ora', 'yx', 'ex', 'ita', 'onic', 'ux'];
const NAME_KINDS = ['Inc.', 'Corp.', 'Holdings Inc.', 'Group Inc.', 'Technologies Inc.', 'Co.'];
const CITIES: readonly (readonly [string, string, string, string])[] = [
  ['Dallas', 'TX', '75201', '214'],
  ['Chicago', 'IL', '60606', '312'],
  ['Nashville', 'TN', '37203', '615'],
  ['Kansas City', 'MO', '64105', '816'],
  ['Tampa', 'FL', '33602', '813'],
  ['Sacramento', 'CA', '95814', '916'],
  ['Madison', 'WI', '53703', '608'],
  ['Albany', 'NY', '12207', '518'],
  ['Tucson', 'AZ', '85701', '520'],
];
const STREETS = [
  'Commerce St.',
  'Innovation Dr.',
  'Market Sq.',
  'Lakeview Pkwy.',
  'Industrial Blvd.',
  'Corporate Center Dr.',
];

/** Everything about one company that other resources derive from; a pure function of (seed, index). */
export interface Company {
  index: number;
  symbol: string;
  name: string;
  industry: Industry;
  exchange: Exchange;
  street: string;
  city: string;
  state: string;
  zip: string;
  phone: string;
  homepage: string;
  listDate: string;
  active: boolean;
  dualClass: boolean;
  price: number;
  shares: number;
  annualRevenue: number;
  employees: number;
  fiscalYearEndMonth: number;
  figi: string;
  figiComposite: string;
  figiShareClass: string;
  cusip: string;
  isin: string;
  formerIsin: string | null;
  cik: string;
  permid: string;
}

function syntheticTicker(index: number): string {
  const j = index - LISTINGS.length;
  if (j < 26 ** 4) {
    const code = encode(scatter(j, 26 ** 4, 187_319), LETTERS, 4);
    if (!LISTED_TICKERS.has(code)) return code;
  }
  return encode(j, LETTERS, 5); // five letters never collide with the four-letter codes
}

function buildCompany(seed: number, offsets: CodeOffsets, index: number): Company {
  const rng = rngFor(seed, 'company', index);
  const listing = LISTINGS[index];
  let symbol: string,
    name: string,
    industryKey: IndustryKey,
    mic: 'XNAS' | 'XNYS',
    street: string,
    city: string,
    state: string,
    zip: string,
    area: string;
  if (listing) {
    [symbol, name, industryKey, mic, street, city, state, zip, area] = listing;
  } else {
    symbol = syntheticTicker(index);
    name = `${rng.pick(NAME_HEADS)}${rng.pick(NAME_TAILS)} ${rng.pick(NAME_KINDS)}`;
    industryKey = rng.pick(INDUSTRY_KEYS);
    mic = rng.chance(0.55) ? 'XNAS' : 'XNYS';
    street = `${rng.int(10, 9900)} ${rng.pick(STREETS)}`;
    [city, state, zip, area] = rng.pick(CITIES);
  }
  const industry: Industry = INDUSTRIES[industryKey];
  const price = round(rng.logRange(9, 420), 2);
  const shares = Math.round(rng.logRange(1.5e9, 350e9) / price / 1000) * 1000; // market cap $1.5B..$350B
  const annualRevenue = (price * shares) / (industry.ps * rng.range(0.6, 1.6));
  const cusip = cusipOf(index, '10', offsets);
  const word = name
    .split(' ')[0]!
    .toLowerCase()
    .replace(/[^a-z]/g, '');
  return {
    index,
    symbol,
    name,
    industry,
    exchange: EXCHANGES[mic],
    street,
    city,
    state,
    zip,
    phone: `(${area}) 555-01${String(rng.int(0, 99)).padStart(2, '0')}`,
    homepage: listing ? `https://www.${word}.example.com` : `https://www.${word}-${symbol.toLowerCase()}.example.com`,
    listDate: isoDate(Date.UTC(rng.int(1986, 2021), rng.int(0, 11), rng.int(1, 28))),
    active: listing ? !INACTIVE.has(symbol) : !rng.chance(0.02),
    dualClass: DUAL_CLASS.has(symbol),
    price,
    shares,
    annualRevenue,
    employees: Math.max(40, Math.round((annualRevenue / industry.revenuePerEmployee) * rng.range(0.8, 1.2))),
    fiscalYearEndMonth: rng.pick([12, 12, 12, 9, 9, 6, 3]),
    figi: figiOf(index, 0, offsets),
    figiComposite: figiOf(index, 1, offsets),
    figiShareClass: figiOf(index, 2, offsets),
    cusip,
    isin: isinOf(cusip),
    formerIsin:
      ISIN_CHANGED.has(symbol) || (!listing && rng.chance(0.03)) ? isinOf(cusipOf(index, '20', offsets)) : null,
    cik: cikOf(index, offsets),
    permid: permidOf(index, offsets),
  };
}

export function buildCompanies(seed: number, count: number): Company[] {
  const offsets = codeOffsets(seed);
  const out: Company[] = [];
  for (let i = 0; i < count; i++) out.push(buildCompany(seed, offsets, i));
  return out;
}

/** The ids of a covered company's text rows with their times, so news items can link to earlier ones. */
export interface CompanyIds {
  pressReleases: { id: number; at: number }[];
  ratings: { id: number; at: number }[];
  calls: { id: number; at: number }[];
}
