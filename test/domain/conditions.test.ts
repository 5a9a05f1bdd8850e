// The expected values are typed in from Massive's /v3/reference/conditions answer and from the SIP
// specifications' sale-condition rules, not read back from the module.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CONDITIONS,
  type ConditionDataType,
  conditionById,
  excluded,
  type UpdateKind,
  updates,
} from '../../src/domain/conditions.js';

const consolidated = (id: number) => conditionById(id)?.update_rules?.consolidated;
const marketCenter = (id: number) => conditionById(id)?.update_rules?.market_center;
const rule = (highLow: boolean, openClose: boolean, volume: boolean) => ({
  updates_high_low: highLow,
  updates_open_close: openClose,
  updates_volume: volume,
});
const result = (highLow: boolean, openClose: boolean, volume: boolean) => ({ highLow, openClose, volume });

describe('the rules of well-known trade conditions', () => {
  it('odd lots count toward volume only, consolidated and per venue', () => {
    expect(conditionById(37)?.name).toBe('Odd Lot Trade');
    expect(consolidated(37)).toEqual(rule(false, false, true));
    expect(marketCenter(37)).toEqual(rule(false, false, true));
    expect(conditionById(37)?.sip_mapping).toEqual({ CTA: 'I', UTP: 'I', FINRA_TDDS: 'I' });
  });

  it('Form T (extended hours) trades update volume but not high/low or open/close', () => {
    expect(conditionById(12)?.name).toBe('Form T/Extended Hours');
    expect(consolidated(12)).toEqual(rule(false, false, true));
    expect(consolidated(13)).toEqual(rule(false, false, true));
  });

  it('average-price trades update volume only (Massive knowledge base example)', () => {
    expect(conditionById(2)).toMatchObject({
      name: 'Average Price Trade',
      type: 'sale_condition',
      sip_mapping: { CTA: 'B', UTP: 'W', FINRA_TDDS: 'W' },
      update_rules: { consolidated: rule(false, false, true), market_center: rule(false, false, true) },
      data_types: ['trade'],
    });
  });

  it('a corrected consolidated close sets high/low and close but never volume, and no venue record', () => {
    expect(consolidated(38)).toEqual(rule(true, true, false));
    expect(marketCenter(38)).toEqual(rule(false, false, false));
  });

  it('official open/close reports update nothing consolidated; per venue they set the price, never volume', () => {
    expect(consolidated(15)).toEqual(rule(false, false, false));
    expect(marketCenter(15)).toEqual(rule(true, true, false));
    expect(consolidated(16)).toEqual(rule(false, false, false));
    expect(marketCenter(16)).toEqual(rule(true, false, false));
  });

  it('late and derivatively priced prints set high/low but not open/close', () => {
    for (const id of [5, 10, 22, 32, 33]) expect(consolidated(id), String(id)).toEqual(rule(true, false, true));
  });

  it('intermarket sweeps, trade-through-exempt prints and auction prints update everything', () => {
    expect(conditionById(14)?.name).toBe('Intermarket Sweep');
    expect(conditionById(41)).toMatchObject({ name: 'Trade Thru Exempt', type: 'trade_thru_exempt' });
    for (const id of [14, 41, 8, 17, 19, 25, 28]) expect(consolidated(id), String(id)).toEqual(rule(true, true, true));
  });

  it('short-sale and financial-status indicators carry no rules', () => {
    for (const id of [57, 60, 62, 71]) expect(conditionById(id)?.update_rules, String(id)).toBeUndefined();
  });
});

describe('excluded', () => {
  it('lists the ids that block each kind, ascending', () => {
    expect(excluded('highLow')).toEqual([2, 7, 12, 13, 15, 16, 20, 21, 29, 37, 52, 53]);
    expect(excluded('openClose')).toEqual([2, 5, 7, 10, 12, 13, 15, 16, 20, 21, 22, 29, 32, 33, 37, 52, 53]);
    expect(excluded('volume')).toEqual([15, 16, 38]);
  });

  it('rejects a kind that is not one', () => {
    expect(() => excluded('last' as UpdateKind)).toThrow(RangeError);
  });
});

describe('updates', () => {
  it.each([
    [[], result(true, true, true)],
    [[12, 37], result(false, false, true)],
    [[37], result(false, false, true)],
    [[14, 41], result(true, true, true)],
    [[12], result(false, false, true)],
    [[10, 22], result(true, false, true)],
    [[15], result(false, false, false)],
    [[38], result(true, true, false)],
    [[38, 37], result(false, false, false)],
    [[14, 12, 41], result(false, false, true)],
    [[60], result(true, true, true)],
    [[12, 60], result(false, false, true)],
    [[999], result(true, true, true)],
  ])('a trade carrying %j updates %j', (codes, expected) => {
    expect(updates(codes)).toEqual(expected);
  });

  it('agrees with the excluded lists for every pair of trade codes', () => {
    const ids = [...new Set(CONDITIONS.filter((c) => c.data_types.includes('trade')).map((c) => c.id)), 999];
    const kinds: UpdateKind[] = ['highLow', 'openClose', 'volume'];
    for (const a of ids)
      for (const b of ids) {
        const got = updates([a, b]);
        for (const kind of kinds)
          expect(got[kind], `${kind} of [${a}, ${b}]`).toBe(!excluded(kind).includes(a) && !excluded(kind).includes(b));
      }
  });

  it('rejects a code that cannot be one', () => {
    expect(() => updates([12, 1.5])).toThrow(RangeError);
    expect(() => updates([-1])).toThrow(RangeError);
  });
});

describe('the table', () => {
  it('holds the 94 stock conditions Massive lists, by type', () => {
    expect(CONDITIONS).toHaveLength(94);
    const count = (type: string) => CONDITIONS.filter((c) => c.type === type).length;
    expect(count('sale_condition')).toBe(40);
    expect(count('quote_condition')).toBe(33);
    expect(count('financial_status_indicator')).toBe(10);
    expect(count('short_sale_restriction_indicator')).toBe(4);
    expect(count('trade_thru_exempt') + count('settlement_condition')).toBe(3);
    expect(count('market_condition') + count('sip_generated_flag')).toBe(4);
    expect(CONDITIONS.every((c) => c.asset_class === 'stocks')).toBe(true);
  });

  it('gives each id one current condition per data type; only quote id 30 is shared, with a legacy one', () => {
    const dataTypes: ConditionDataType[] = ['trade', 'bbo', 'nbbo'];
    for (const dataType of dataTypes) {
      const current = CONDITIONS.filter((c) => c.data_types.includes(dataType) && !c.legacy).map((c) => c.id);
      expect(new Set(current).size, dataType).toBe(current.length);
    }
    const thirty = CONDITIONS.filter((c) => c.id === 30 && c.data_types.includes('nbbo'));
    expect(thirty.map((c) => [c.name, c.legacy])).toEqual([
      ['In View Of Common', false],
      ['Equipment Changeover', true],
    ]);
    expect(conditionById(30, 'nbbo')?.name).toBe('In View Of Common');
  });

  it('marks the conditions Massive calls legacy', () => {
    expect(CONDITIONS.filter((c) => c.legacy).map((c) => `${c.data_types[0]}:${c.id}`)).toEqual([
      'trade:6',
      'trade:27',
      'trade:31',
      'trade:33',
      'trade:35',
      'trade:55',
      'bbo:26',
      'bbo:30',
    ]);
  });

  it('gives rules to sale conditions and trade-through exemptions only, and to trades only', () => {
    for (const c of CONDITIONS) {
      const ruled = c.type === 'sale_condition' || c.type === 'trade_thru_exempt';
      expect(c.update_rules !== undefined, `${c.type} ${c.id}`).toBe(ruled);
      if (ruled) expect(c.data_types).toEqual(['trade']);
    }
  });

  it('is frozen all the way down', () => {
    expect(Object.isFrozen(CONDITIONS)).toBe(true);
    const formT = conditionById(12)!;
    expect(Object.isFrozen(formT) && Object.isFrozen(formT.sip_mapping)).toBe(true);
    expect(Object.isFrozen(formT.update_rules!.consolidated) && Object.isFrozen(formT.data_types)).toBe(true);
    expect(Object.isFrozen(excluded('volume'))).toBe(true);
  });
});

describe('conditionById', () => {
  it('reads an id against the data type it is given', () => {
    expect(conditionById(12)?.name).toBe('Form T/Extended Hours');
    expect(conditionById(12, 'nbbo')?.name).toBe('Manual Bid and Ask');
    expect(conditionById(41, 'bbo')).toMatchObject({ name: 'Cash Only Settlement', type: 'settlement_condition' });
    expect(conditionById(24)).toMatchObject({ name: 'Rule 127 (NYSE Only)', exchange: 10 });
    expect(conditionById(26)).toBeUndefined();
    expect(conditionById(2, 'bbo')).toBeUndefined();
  });

  it('rejects an id that cannot be one', () => {
    expect(() => conditionById(Number.NaN)).toThrow(RangeError);
  });
});

describe('the codes the sample data uses', () => {
  const sample = readFileSync(new URL('../../src/sample/ticks.ts', import.meta.url), 'utf8');
  const codesOf = (name: string): number[] => {
    const sets = sample.match(new RegExp(`const ${name} = freeze\\((\\[.*\\])\\);`))?.[1];
    if (!sets) throw new Error(`src/sample/ticks.ts no longer declares ${name} as freeze([...]): update this test`);
    return [...new Set((JSON.parse(sets) as number[][]).flat())];
  };

  it('are the codes this test was written for', () => {
    expect(codesOf('TRADE_CONDITIONS').sort((a, b) => a - b)).toEqual([12, 14, 37, 41]);
    expect(codesOf('QUOTE_CONDITIONS').sort((a, b) => a - b)).toEqual([1, 9, 14]);
  });

  it('are all known, under the names Massive gives them', () => {
    for (const id of codesOf('TRADE_CONDITIONS')) expect(conditionById(id), `trade ${id}`).toBeDefined();
    for (const id of codesOf('QUOTE_CONDITIONS'))
      expect(conditionById(id, 'nbbo') ?? conditionById(id, 'bbo'), `quote ${id}`).toBeDefined();
    expect(conditionById(1, 'nbbo')?.name).toBe('Regular Two-Sided Open');
    expect(conditionById(9, 'nbbo')?.name).toBe('Slow Due Set Slow List Bid Ask');
    // Massive lists 14 for venue quotes only: on a national quote it is not a code Massive sends.
    expect(conditionById(14, 'bbo')?.name).toBe('Closing');
    expect(conditionById(14, 'nbbo')).toBeUndefined();
  });
});
