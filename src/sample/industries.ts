/** Reference tables: the two listing exchanges and the industries every sample company belongs to. */

export interface Exchange {
  mic: 'XNAS' | 'XNYS';
  name: string;
  label: string;
  /** vendor-y (Bloomberg-style) exchange code, as in security-info `exch_code` */
  exchCode: string;
  vendorxCode: string;
  vendorxName: string;
  ricSuffix: string;
  tape: number;
}

export const EXCHANGES: Record<'XNAS' | 'XNYS', Exchange> = {
  XNAS: { mic: 'XNAS', name: 'NASDAQ - ALL MARKETS', label: 'NASDAQ', exchCode: 'UW', vendorxCode: 'NAS', vendorxName: 'Nasdaq Stock Market', ricSuffix: '.OQ', tape: 3 },
  XNYS: { mic: 'XNYS', name: 'NEW YORK STOCK EXCHANGE, INC.', label: 'NYSE', exchCode: 'UN', vendorxCode: 'NYS', vendorxName: 'New York Stock Exchange', ricSuffix: '.N', tape: 1 },
};

export interface Industry {
  sector: string;
  gicsCode: string;
  subIndustry: string;
  sicCode: string;
  sicDescription: string;
  /** completes "<Company> ..." in descriptions */
  does: string;
  product: string;
  /** typical price-to-sales ratio, margins and ratios to revenue */
  ps: number;
  grossMargin: number;
  sga: number;
  rd: number;
  capex: number;
  /** net fixed assets as a multiple of annual revenue */
  fixedAssets: number;
  inventory: boolean;
  dividendProbability: number;
  revenuePerEmployee: number;
  themes: readonly string[];
  topics: readonly string[];
}

export const INDUSTRIES = {
  semis: {
    sector: 'Information Technology', gicsCode: '45301020', subIndustry: 'Semiconductors', sicCode: '3674', sicDescription: 'SEMICONDUCTORS & RELATED DEVICES',
    does: 'designs processors, accelerators and mixed-signal chips for data-center, automotive and industrial customers', product: 'accelerator',
    ps: 8, grossMargin: 0.58, sga: 0.1, rd: 0.2, capex: 0.06, fixedAssets: 0.35, inventory: true, dividendProbability: 0.3, revenuePerEmployee: 900_000,
    themes: ['foundry concentration', 'export controls', 'customer concentration', 'cyclical demand'], topics: ['data-center demand', 'wafer supply', 'gross margin expansion'],
  },
  software: {
    sector: 'Information Technology', gicsCode: '45103010', subIndustry: 'Application Software', sicCode: '7372', sicDescription: 'SERVICES-PREPACKAGED SOFTWARE',
    does: 'sells subscription software that helps enterprises plan, automate and secure their operations', product: 'platform',
    ps: 9, grossMargin: 0.76, sga: 0.38, rd: 0.22, capex: 0.03, fixedAssets: 0.1, inventory: false, dividendProbability: 0.1, revenuePerEmployee: 420_000,
    themes: ['data privacy regulation', 'cybersecurity incidents', 'competition from larger vendors', 'talent retention'], topics: ['annual recurring revenue', 'net retention', 'AI features'],
  },
  hardware: {
    sector: 'Information Technology', gicsCode: '45202030', subIndustry: 'Technology Hardware, Storage & Peripherals', sicCode: '3572', sicDescription: 'COMPUTER STORAGE DEVICES',
    does: 'builds storage arrays, networking gear and edge servers for enterprise data centers', product: 'storage system',
    ps: 2.5, grossMargin: 0.36, sga: 0.14, rd: 0.09, capex: 0.04, fixedAssets: 0.2, inventory: true, dividendProbability: 0.5, revenuePerEmployee: 600_000,
    themes: ['component shortages', 'pricing pressure', 'tariffs', 'inventory obsolescence'], topics: ['enterprise refresh cycle', 'supply chain', 'services attach rate'],
  },
  pharma: {
    sector: 'Health Care', gicsCode: '35202010', subIndustry: 'Pharmaceuticals', sicCode: '2834', sicDescription: 'PHARMACEUTICAL PREPARATIONS',
    does: 'develops and markets therapies for oncology, immunology and rare diseases', product: 'therapy',
    ps: 5, grossMargin: 0.72, sga: 0.28, rd: 0.3, capex: 0.04, fixedAssets: 0.25, inventory: true, dividendProbability: 0.4, revenuePerEmployee: 700_000,
    themes: ['clinical trial outcomes', 'drug pricing reform', 'patent expiries', 'regulatory approval timing'], topics: ['pipeline milestones', 'launch trajectory', 'pricing'],
  },
  medtech: {
    sector: 'Health Care', gicsCode: '35101010', subIndustry: 'Health Care Equipment', sicCode: '3841', sicDescription: 'SURGICAL & MEDICAL INSTRUMENTS & APPARATUS',
    does: 'makes surgical systems, monitoring devices and consumables used by hospitals and clinics', product: 'surgical system',
    ps: 5, grossMargin: 0.62, sga: 0.32, rd: 0.09, capex: 0.05, fixedAssets: 0.3, inventory: true, dividendProbability: 0.5, revenuePerEmployee: 350_000,
    themes: ['product recalls', 'hospital capital budgets', 'reimbursement changes', 'device regulation'], topics: ['procedure volumes', 'installed base', 'recurring consumables'],
  },
  bank: {
    sector: 'Financials', gicsCode: '40101015', subIndustry: 'Regional Banks', sicCode: '6022', sicDescription: 'STATE COMMERCIAL BANKS',
    does: 'provides commercial lending, deposit and wealth-management services to businesses and households', product: 'digital banking service',
    ps: 3, grossMargin: 0.65, sga: 0.3, rd: 0, capex: 0.02, fixedAssets: 0.1, inventory: false, dividendProbability: 0.95, revenuePerEmployee: 450_000,
    themes: ['credit quality', 'deposit competition', 'interest rate risk', 'commercial real estate exposure'], topics: ['net interest margin', 'loan growth', 'credit reserves'],
  },
  assetManagement: {
    sector: 'Financials', gicsCode: '40203010', subIndustry: 'Asset Management & Custody Banks', sicCode: '6282', sicDescription: 'INVESTMENT ADVICE',
    does: 'manages mutual funds, ETFs and separate accounts for institutions and individual investors', product: 'ETF',
    ps: 4, grossMargin: 0.6, sga: 0.3, rd: 0, capex: 0.015, fixedAssets: 0.08, inventory: false, dividendProbability: 0.8, revenuePerEmployee: 900_000,
    themes: ['fee compression', 'market volatility', 'fund outflows', 'key-person risk'], topics: ['assets under management', 'net flows', 'fee rate'],
  },
  retail: {
    sector: 'Consumer Discretionary', gicsCode: '25503030', subIndustry: 'Broadline Retail', sicCode: '5331', sicDescription: 'RETAIL-VARIETY STORES',
    does: 'operates discount stores and an online marketplace for home goods, apparel and everyday essentials', product: 'membership program',
    ps: 0.8, grossMargin: 0.32, sga: 0.22, rd: 0.01, capex: 0.03, fixedAssets: 0.25, inventory: true, dividendProbability: 0.6, revenuePerEmployee: 220_000,
    themes: ['consumer spending', 'labor costs', 'shrink', 'tariffs'], topics: ['comparable sales', 'e-commerce growth', 'inventory discipline'],
  },
  autos: {
    sector: 'Consumer Discretionary', gicsCode: '25102010', subIndustry: 'Automobile Manufacturers', sicCode: '3711', sicDescription: 'MOTOR VEHICLES & PASSENGER CAR BODIES',
    does: 'designs and manufactures electric vehicles, battery packs and charging equipment', product: 'electric SUV',
    ps: 1.2, grossMargin: 0.18, sga: 0.07, rd: 0.05, capex: 0.07, fixedAssets: 0.5, inventory: true, dividendProbability: 0.3, revenuePerEmployee: 600_000,
    themes: ['battery supply', 'EV incentives', 'warranty costs', 'production ramp'], topics: ['deliveries', 'unit economics', 'battery costs'],
  },
  aerospace: {
    sector: 'Industrials', gicsCode: '20101010', subIndustry: 'Aerospace & Defense', sicCode: '3812', sicDescription: 'SEARCH, DETECTION, NAVIGATION, GUIDANCE, AERONAUTICAL SYS',
    does: 'builds satellites, avionics and defense electronics for government and commercial customers', product: 'satellite bus',
    ps: 2, grossMargin: 0.24, sga: 0.08, rd: 0.04, capex: 0.03, fixedAssets: 0.25, inventory: true, dividendProbability: 0.7, revenuePerEmployee: 400_000,
    themes: ['government budgets', 'fixed-price contracts', 'supply chain', 'export licensing'], topics: ['backlog', 'program execution', 'book-to-bill'],
  },
  machinery: {
    sector: 'Industrials', gicsCode: '20106010', subIndustry: 'Construction Machinery & Heavy Transportation Equipment', sicCode: '3531', sicDescription: 'CONSTRUCTION MACHINERY & EQUIP',
    does: 'manufactures construction machinery, automation systems and aftermarket parts', product: 'autonomous loader',
    ps: 2, grossMargin: 0.3, sga: 0.11, rd: 0.04, capex: 0.04, fixedAssets: 0.3, inventory: true, dividendProbability: 0.7, revenuePerEmployee: 450_000,
    themes: ['steel prices', 'dealer inventories', 'infrastructure spending', 'cyclical demand'], topics: ['order intake', 'pricing', 'aftermarket growth'],
  },
  energy: {
    sector: 'Energy', gicsCode: '10102020', subIndustry: 'Oil & Gas Exploration & Production', sicCode: '1311', sicDescription: 'CRUDE PETROLEUM & NATURAL GAS',
    does: 'explores for and produces oil, natural gas and natural gas liquids in North American basins', product: 'gas processing facility',
    ps: 2.2, grossMargin: 0.45, sga: 0.04, rd: 0, capex: 0.25, fixedAssets: 2, inventory: true, dividendProbability: 0.8, revenuePerEmployee: 2_500_000,
    themes: ['commodity prices', 'environmental regulation', 'reserve estimates', 'well performance'], topics: ['production volumes', 'capital discipline', 'realized prices'],
  },
  utility: {
    sector: 'Utilities', gicsCode: '55101010', subIndustry: 'Electric Utilities', sicCode: '4911', sicDescription: 'ELECTRIC SERVICES',
    does: 'generates, transmits and distributes electricity to residential, commercial and industrial customers', product: 'grid battery program',
    ps: 2.5, grossMargin: 0.5, sga: 0.12, rd: 0, capex: 0.2, fixedAssets: 3, inventory: true, dividendProbability: 1, revenuePerEmployee: 800_000,
    themes: ['rate case outcomes', 'wildfire and storm exposure', 'fuel costs', 'decarbonization mandates'], topics: ['rate base growth', 'load growth', 'regulatory approvals'],
  },
  media: {
    sector: 'Communication Services', gicsCode: '50203010', subIndustry: 'Interactive Media & Services', sicCode: '7370', sicDescription: 'SERVICES-COMPUTER PROGRAMMING, DATA PROCESSING, ETC.',
    does: 'runs streaming, social and advertising platforms that reach hundreds of millions of users', product: 'ad platform',
    ps: 6, grossMargin: 0.6, sga: 0.22, rd: 0.18, capex: 0.1, fixedAssets: 0.4, inventory: false, dividendProbability: 0.2, revenuePerEmployee: 1_100_000,
    themes: ['advertising demand', 'content moderation', 'platform regulation', 'user engagement'], topics: ['engagement', 'advertising pricing', 'subscriber growth'],
  },
  food: {
    sector: 'Consumer Staples', gicsCode: '30202030', subIndustry: 'Packaged Foods & Meats', sicCode: '2000', sicDescription: 'FOOD AND KINDRED PRODUCTS',
    does: 'produces packaged snacks, frozen meals and beverages sold through grocery and club channels', product: 'snack line',
    ps: 1.8, grossMargin: 0.33, sga: 0.17, rd: 0.01, capex: 0.04, fixedAssets: 0.35, inventory: true, dividendProbability: 0.95, revenuePerEmployee: 350_000,
    themes: ['input cost inflation', 'retailer concentration', 'private-label competition', 'food safety'], topics: ['volume trends', 'pricing actions', 'productivity savings'],
  },
} as const satisfies Record<string, Industry>;

export type IndustryKey = keyof typeof INDUSTRIES;
export const INDUSTRY_KEYS = Object.keys(INDUSTRIES) as IndustryKey[];
