/**
 * The stock trade and quote condition codes as Massive serves them at /v3/reference/conditions
 * (asset_class=stocks: 94 rows), with each trade condition's update rules: which of high/low,
 * open/close and volume a trade carrying it may update. Field names are Massive's. The consolidated
 * rules (all venues together) are the ones that decide a consolidated bar; the market_center rules
 * are for per-venue bars. A condition id names a trade condition or a quote condition depending on
 * the data type it is read against: 12 is Form T on a trade and "Manual Bid and Ask" on a quote.
 */

export type ConditionType =
  | 'sale_condition'
  | 'quote_condition'
  | 'sip_generated_flag'
  | 'financial_status_indicator'
  | 'short_sale_restriction_indicator'
  | 'settlement_condition'
  | 'market_condition'
  | 'trade_thru_exempt';

/** `bbo` is a venue's quote, `nbbo` the national best; trades are `trade`. */
export type ConditionDataType = 'trade' | 'bbo' | 'nbbo';

export type Sip = 'CTA' | 'UTP' | 'OPRA' | 'FINRA_TDDS';

export interface UpdateRule {
  readonly updates_high_low: boolean;
  readonly updates_open_close: boolean;
  readonly updates_volume: boolean;
}

export interface Condition {
  /** Unique per data type among current conditions; quote id 30 is also a legacy condition's. */
  readonly id: number;
  readonly type: ConditionType;
  readonly name: string;
  readonly asset_class: 'stocks';
  readonly data_types: readonly ConditionDataType[];
  /** The code each SIP sends for this condition. */
  readonly sip_mapping: Readonly<Partial<Record<Sip, string>>>;
  /** Present when the SIP code means this condition only on that venue's prints. */
  readonly exchange?: number;
  /** From an old version of the SIPs' specifications; Massive omits the field when false. */
  readonly legacy: boolean;
  /** Only trade conditions that bear on aggregation carry rules. */
  readonly update_rules?: { readonly consolidated: UpdateRule; readonly market_center: UpdateRule };
}

/** What a trade may update in a bar: the three switches of an update rule. */
export type UpdateKind = 'highLow' | 'openClose' | 'volume';

/** A rule written as three letters: H (high/low), O (open/close), V (volume), or '-' where it does not update. */
type Flags = `${'H' | '-'}${'O' | '-'}${'V' | '-'}`;

const rule = (flags: Flags): UpdateRule => ({
  updates_high_low: flags[0] === 'H',
  updates_open_close: flags[1] === 'O',
  updates_volume: flags[2] === 'V',
});

type SipMapping = Condition['sip_mapping'];

interface Extra {
  type?: ConditionType;
  legacy?: boolean;
  exchange?: number;
}

/** A trade condition with its consolidated rule and, when it differs, its market_center rule. */
function trade(
  id: number,
  name: string,
  sip: SipMapping,
  consolidated: Flags,
  marketCenter = consolidated,
  extra: Extra = {},
): Condition {
  return {
    id,
    type: extra.type ?? 'sale_condition',
    name,
    asset_class: 'stocks',
    data_types: ['trade'],
    sip_mapping: sip,
    ...(extra.exchange === undefined ? {} : { exchange: extra.exchange }),
    legacy: extra.legacy ?? false,
    update_rules: { consolidated: rule(consolidated), market_center: rule(marketCenter) },
  };
}

/** A trade condition without update rules: it informs and does not bear on aggregation. */
function tradeIndicator(type: ConditionType, id: number, name: string, sip: SipMapping): Condition {
  return { id, type, name, asset_class: 'stocks', data_types: ['trade'], sip_mapping: sip, legacy: false };
}

const BOTH: readonly ConditionDataType[] = ['bbo', 'nbbo'];

function quote(
  type: ConditionType,
  id: number,
  name: string,
  sip: SipMapping,
  dataTypes: readonly ConditionDataType[] = BOTH,
  legacy = false,
): Condition {
  return { id, type, name, asset_class: 'stocks', data_types: dataTypes, sip_mapping: sip, legacy };
}

const LEGACY: Extra = { legacy: true };
const Q = 'quote_condition';
const FSI = 'financial_status_indicator';
const SSR = 'short_sale_restriction_indicator';

// Transcribed row by row from Massive's answer; the tests pin the rules the SIP specifications state.
const TABLE: Condition[] = [
  trade(1, 'Acquisition', { UTP: 'A' }, 'HOV'),
  trade(2, 'Average Price Trade', { CTA: 'B', UTP: 'W', FINRA_TDDS: 'W' }, '--V'),
  trade(3, 'Automatic Execution', { CTA: 'E' }, 'HOV'),
  trade(4, 'Bunched Trade', { UTP: 'B' }, 'HOV'),
  trade(5, 'Bunched Sold Trade', { UTP: 'G' }, 'H-V'),
  trade(6, 'CAP Election', { CTA: 'I' }, 'HOV', 'HOV', LEGACY),
  trade(7, 'Cash Sale', { CTA: 'C', UTP: 'C', FINRA_TDDS: 'C' }, '--V'),
  trade(8, 'Closing Prints', { UTP: '6' }, 'HOV'),
  trade(9, 'Cross Trade', { CTA: 'X', UTP: 'X' }, 'HOV'),
  trade(10, 'Derivatively Priced', { CTA: '4', UTP: '4' }, 'H-V'),
  trade(11, 'Distribution', { UTP: 'D' }, 'HOV'),
  trade(12, 'Form T/Extended Hours', { CTA: 'T', UTP: 'T', FINRA_TDDS: 'T' }, '--V'),
  trade(13, 'Extended Hours (Sold Out Of Sequence)', { CTA: 'U', UTP: 'U', FINRA_TDDS: 'U' }, '--V'),
  trade(14, 'Intermarket Sweep', { CTA: 'F', UTP: 'F' }, 'HOV'),
  trade(15, 'Market Center Official Close', { CTA: 'M', UTP: 'M' }, '---', 'HO-'),
  trade(16, 'Market Center Official Open', { CTA: 'Q', UTP: 'Q' }, '---', 'H--'),
  trade(17, 'Market Center Opening Trade', { CTA: 'O' }, 'HOV'),
  trade(18, 'Market Center Reopening Trade', { CTA: '5' }, 'HOV'),
  trade(19, 'Market Center Closing Trade', { CTA: '6' }, 'HOV'),
  trade(20, 'Next Day', { CTA: 'N', UTP: 'N', FINRA_TDDS: 'N' }, '--V'),
  trade(21, 'Price Variation Trade', { CTA: 'H', UTP: 'H' }, '--V'),
  trade(22, 'Prior Reference Price', { CTA: 'P', UTP: 'P', FINRA_TDDS: 'P' }, 'H-V'),
  trade(23, 'Rule 155 Trade (AMEX)', { CTA: 'K', UTP: 'K' }, 'HOV', 'HOV', { exchange: 1 }),
  trade(24, 'Rule 127 (NYSE Only)', { CTA: 'K' }, 'HOV', 'HOV', { exchange: 10 }),
  trade(25, 'Opening Prints', { UTP: 'O' }, 'HOV'),
  trade(27, 'Stopped Stock (Regular Trade)', { UTP: '1' }, 'HOV', 'HOV', LEGACY),
  trade(28, 'Re-Opening Prints', { UTP: '5' }, 'HOV'),
  trade(29, 'Seller', { CTA: 'R', UTP: 'R', FINRA_TDDS: 'R' }, '--V'),
  trade(30, 'Sold Last', { CTA: 'L', UTP: 'L' }, 'HOV'),
  trade(31, 'Sold Last and Stopped Stock', { UTP: '2' }, 'HOV', 'HOV', LEGACY),
  trade(32, 'Sold (Out Of Sequence)', { CTA: 'Z', UTP: 'Z', FINRA_TDDS: 'Z' }, 'H-V'),
  trade(33, 'Sold (Out of Sequence) and Stopped Stock', { UTP: '3' }, 'H-V', 'H-V', LEGACY),
  trade(34, 'Split Trade', { UTP: 'S' }, 'HOV'),
  trade(35, 'Stock Option', { UTP: 'V' }, 'HOV', 'HOV', LEGACY),
  trade(36, 'Yellow Flag Regular Trade', { UTP: 'Y' }, 'HOV'),
  trade(37, 'Odd Lot Trade', { CTA: 'I', UTP: 'I', FINRA_TDDS: 'I' }, '--V'),
  trade(38, 'Corrected Consolidated Close (per listing market)', { CTA: '9', UTP: '9' }, 'HO-', '---'),
  trade(41, 'Trade Thru Exempt', { CTA: '1', UTP: 'X' }, 'HOV', 'HOV', { type: 'trade_thru_exempt' }),
  trade(52, 'Contingent Trade', { CTA: 'V', UTP: 'V' }, '--V'),
  trade(53, 'Qualified Contingent Trade', { CTA: '7', UTP: '7' }, '--V'),
  trade(55, 'Opening Reopening Trade Detail', { CTA: 'G' }, 'HOV', 'HOV', LEGACY),
  tradeIndicator(SSR, 57, 'Short Sale Restriction Activated', { CTA: 'A' }),
  tradeIndicator(SSR, 58, 'Short Sale Restriction Continued', { CTA: 'C' }),
  tradeIndicator(SSR, 59, 'Short Sale Restriction Deactivated', { CTA: 'D' }),
  tradeIndicator(SSR, 60, 'Short Sale Restriction In Effect', { CTA: 'E' }),
  tradeIndicator(FSI, 62, 'Financial Status - Bankrupt', { CTA: '1' }),
  tradeIndicator(FSI, 63, 'Financial Status - Deficient', { CTA: '2' }),
  tradeIndicator(FSI, 64, 'Financial Status - Delinquent', { CTA: '3' }),
  tradeIndicator(FSI, 65, 'Financial Status - Bankrupt and Deficient', { CTA: '4' }),
  tradeIndicator(FSI, 66, 'Financial Status - Bankrupt and Delinquent', { CTA: '5' }),
  tradeIndicator(FSI, 67, 'Financial Status - Deficient and Delinquent', { CTA: '6' }),
  tradeIndicator(FSI, 68, 'Financial Status - Deficient, Delinquent, and Bankrupt', { CTA: '7' }),
  tradeIndicator(FSI, 69, 'Financial Status - Liquidation', { CTA: 'A' }),
  tradeIndicator(FSI, 70, 'Financial Status - Creations Suspended', { CTA: '8' }),
  tradeIndicator(FSI, 71, 'Financial Status - Redemptions Suspended', { CTA: '9' }),

  quote(Q, 1, 'Regular Two-Sided Open', { CTA: 'R', UTP: 'R' }),
  quote(Q, 2, 'Regular One-Sided Open', { UTP: 'Y' }, ['nbbo']),
  quote(Q, 3, 'Slow Ask', { CTA: 'A' }),
  quote(Q, 4, 'Slow Bid', { CTA: 'B' }),
  quote(Q, 5, 'Slow Bid and Ask', { CTA: 'H' }),
  quote(Q, 6, 'Slow Due LRP Bid', { CTA: 'E' }),
  quote(Q, 7, 'Slow Due LRP Ask', { CTA: 'F' }),
  quote(Q, 9, 'Slow Due Set Slow List Bid Ask', { CTA: 'W', UTP: 'W' }),
  quote(Q, 10, 'Manual Ask Automated Bid', { UTP: 'A' }),
  quote(Q, 11, 'Manual Bid Automated Ask', { UTP: 'B' }),
  quote(Q, 12, 'Manual Bid and Ask', { UTP: 'H' }),
  quote(Q, 13, 'Opening', { CTA: 'O', UTP: 'O' }),
  quote(Q, 14, 'Closing', { CTA: 'C' }, ['bbo']),
  quote(Q, 15, 'Closed', { UTP: 'L' }),
  quote(Q, 16, 'Resume', { CTA: 'T', UTP: 'T' }),
  quote(Q, 17, 'Fast Trading', { UTP: 'F' }, ['bbo']),
  quote(Q, 18, 'Trading Range Indication', { CTA: 'G', UTP: 'G' }),
  quote(Q, 19, 'Market Maker Quotes Closed', { CTA: 'L' }, ['bbo']),
  quote(Q, 20, 'Non-Firm', { CTA: 'N', UTP: 'N' }, ['bbo']),
  quote(Q, 21, 'News Dissemination', { CTA: 'J', UTP: 'J' }),
  quote(Q, 22, 'Order Influx', { UTP: 'X' }, ['bbo']),
  quote(Q, 23, 'Order Imbalance', { UTP: 'I' }, ['bbo']),
  quote(Q, 26, 'Additional Information', { CTA: 'M', UTP: 'M' }, BOTH, true),
  quote(Q, 27, 'News Pending', { CTA: 'P', UTP: 'P' }),
  quote(Q, 28, 'Additional Information Due To Related Security', { CTA: 'Q', UTP: 'Q' }),
  quote(Q, 29, 'Due To Related Security', { CTA: 'S', UTP: 'S' }),
  quote(Q, 30, 'In View Of Common', { CTA: 'V', UTP: 'V' }),
  quote(Q, 30, 'Equipment Changeover', { CTA: 'X', UTP: 'X' }, BOTH, true),
  quote(Q, 32, 'No Open No Resume', { CTA: 'Z' }, ['bbo']),
  quote(Q, 40, 'On Demand Auction', { CTA: '4', UTP: '4' }, ['bbo']),
  quote(Q, 43, 'LULD Trading Pause', { CTA: 'M', UTP: 'M' }),
  quote(Q, 71, 'Slow Due LRP Bid and Ask', { CTA: 'U' }, ['bbo']),
  quote(Q, 81, 'Corrected Price Indication', { UTP: 'C' }),
  quote('settlement_condition', 41, 'Cash Only Settlement', { CTA: 'A' }),
  quote('settlement_condition', 42, 'Next Day Settlement', { CTA: 'B' }),
  quote('sip_generated_flag', 82, 'SIP Generated', { UTP: 'E' }),
  quote('market_condition', 84, 'Crossed Market', { CTA: 'A' }),
  quote('market_condition', 85, 'Locked Market', { CTA: 'B' }),
  quote('sip_generated_flag', 94, 'CQS Generated', { CTA: 'S' }),
];

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Every stock condition Massive lists, trade conditions first, each group by id. */
export const CONDITIONS: readonly Condition[] = deepFreeze(TABLE);

/** By data type, then id; a current condition wins over a legacy one with the same id. */
const BY_DATA_TYPE = new Map<ConditionDataType, Map<number, Condition>>();
for (const c of CONDITIONS) {
  for (const dataType of c.data_types) {
    let byId = BY_DATA_TYPE.get(dataType);
    if (!byId) BY_DATA_TYPE.set(dataType, (byId = new Map()));
    const held = byId.get(c.id);
    if (!held || (held.legacy && !c.legacy)) byId.set(c.id, c);
  }
}

function checkId(id: number): void {
  if (!Number.isSafeInteger(id) || id < 0) throw new RangeError(`a condition id is a whole number >= 0; got ${id}`);
}

/** The condition an id names on a trade (the default), a venue quote (bbo) or a national quote (nbbo). */
export function conditionById(id: number, dataType: ConditionDataType = 'trade'): Condition | undefined {
  checkId(id);
  return BY_DATA_TYPE.get(dataType)?.get(id);
}

const FIELD: Readonly<Record<UpdateKind, keyof UpdateRule>> = {
  highLow: 'updates_high_low',
  openClose: 'updates_open_close',
  volume: 'updates_volume',
};

const EXCLUDED: Readonly<Record<UpdateKind, readonly number[]>> = Object.freeze(
  Object.fromEntries(
    (Object.keys(FIELD) as UpdateKind[]).map((kind) => {
      const ids = new Set<number>();
      for (const c of BY_DATA_TYPE.get('trade')!.values())
        if (c.update_rules && !c.update_rules.consolidated[FIELD[kind]]) ids.add(c.id);
      return [kind, Object.freeze([...ids].sort((a, b) => a - b))];
    }),
  ) as Record<UpdateKind, readonly number[]>,
);

/**
 * The trade condition ids whose consolidated rule keeps a trade from updating `kind`, ascending.
 * A trade counts toward `kind` exactly when it carries none of them, so a SQL predicate written
 * from this list and `updates` agree.
 */
export function excluded(kind: UpdateKind): readonly number[] {
  const ids = EXCLUDED[kind];
  if (!ids) throw new RangeError(`kind is one of ${Object.keys(FIELD).join(', ')}; got ${String(kind)}`);
  return ids;
}

/**
 * What a trade carrying these condition codes updates in a consolidated bar: a field only if every
 * code allows it. A code without a rule (a short-sale or financial-status indicator) or one this
 * table does not know allows everything: the SIPs add codes over time, and a trade that a new code
 * dropped from the volume would be lost silently; it also keeps `updates` equal to the
 * `excluded` lists, which can only name known codes.
 */
export function updates(conditions: readonly number[]): { highLow: boolean; openClose: boolean; volume: boolean } {
  for (const id of conditions) checkId(id);
  const blocks = (kind: UpdateKind) => conditions.some((id) => EXCLUDED[kind].includes(id));
  return { highLow: !blocks('highLow'), openClose: !blocks('openClose'), volume: !blocks('volume') };
}

/**
 * Form T: a trade reported outside the regular session. Its consolidated rule keeps it from setting
 * any price, which would leave the pre-market and after-hours without minute bars; Massive's minute
 * bars let it set them there, and so do ours (services/bar-write.ts): within the regular session the
 * consolidated rule holds as written.
 */
export const FORM_T = 12;

/** `excluded(kind)` for a trade outside the regular session: Form T does not block it there. */
export function excludedOutsideRegular(kind: UpdateKind): readonly number[] {
  return excluded(kind).filter((id) => id !== FORM_T);
}
