// The limits of src/domain/limits.ts as the record validators apply them (text of each kind, control
// characters, lists, opaque JSON), the headings computed from filing text, and the two tables the
// GraphQL cost analysis reads, checked against the schema. test/ingest/limits.test.ts runs every
// resource's importer against them.
import { getNamedType, getNullableType, isListType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { FIELD_LIST_KINDS, TEXT_LIMITS, type TextKind } from '../../src/domain/limits.js';
import * as f from '../../src/ingest/record-fields.js';
import { schema } from '../../src/schema/index.js';
import { litigationInsight, riskFactorsInsight } from '../../src/domain/insights.js';
import { jsonOfLength, pad, servedTextKinds, tooLong, tooMany } from './limits-helpers.js';

/** Every served text kind, the manifests' and the field tables' (a coordinate declared both ways throws). */
const FIELD_TEXT_KINDS = servedTextKinds();

describe('record-fields: text, lists and JSON within their limits', () => {
  it.each(Object.keys(TEXT_LIMITS) as TextKind[])(
    '%s text: taken at its limit, refused one character past it with the field, the rule and a cut of the value',
    (kind) => {
      const limit = TEXT_LIMITS[kind];
      expect(f.string(pad(limit), 'Headline', kind)).toHaveLength(limit);
      expect(f.nonEmpty(pad(limit), 'Headline', kind)).toHaveLength(limit);
      expect(f.optString(pad(limit), 'Headline', kind)).toHaveLength(limit);
      for (const check of [f.string, f.nonEmpty, f.optString]) {
        expect(() => check(pad(limit + 1), 'Headline', kind)).toThrow(tooLong('Headline', limit, pad(limit + 1)));
      }
    },
  );

  it('text is short unless a kind is given; strings holds each item to its kind', () => {
    expect(() => f.string(pad(257), 'Headline')).toThrow(
      'Headline: must be at most 256 characters, got 257 characters ("xxxxxxxx',
    );
    expect(() => f.strings(['a', pad(257)], 'Tickers')).toThrow(
      'Tickers[1]: must be at most 256 characters, got 257 characters',
    );
    expect(f.strings([pad(2048)], 'ExternalLinks', 'url')).toEqual([pad(2048)]);
    expect(() => f.strings([pad(2049)], 'ExternalLinks', 'url')).toThrow(
      'ExternalLinks[0]: must be at most 2048 characters, got 2049 characters',
    );
  });

  it('control characters other than tab, newline and carriage return, and lone surrogates, are refused, naming the character and where it is', () => {
    const controls = [...Array.from({ length: 32 }, (_, c) => c).filter((c) => ![9, 10, 13].includes(c)), 0x7f];
    for (const c of controls) {
      const code = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
      expect(() => f.string(`ab${String.fromCharCode(c)}c`, 'Headline'), code).toThrow(
        `Headline: must be text without control characters (but tab, newline and carriage return) or lone surrogates, got the control character ${code} at character 3`,
      );
    }
    expect(() => f.strings(['ok', 'x\uD800'], 'Keywords')).toThrow(
      'Keywords[1]: must be text without control characters (but tab, newline and carriage return) or lone surrogates, got a lone surrogate U+D800 at character 2',
    );
    expect(() => f.string('\uDC00x', 'Headline')).toThrow('got a lone surrogate U+DC00 at character 1');
    // tab, newline, carriage return, a surrogate pair and other non-ASCII text are text
    expect(f.string('a\tb\nc\r\nd 😀 é ₹ \u2028', 'BodyText', 'long')).toBe('a\tb\nc\r\nd 😀 é ₹ \u2028');
  });

  it('lists: at most LIST_LIMITS items of their kind', () => {
    expect(f.array(Array(100).fill(1), 'associated_press_releases')).toHaveLength(100);
    expect(() => f.array(Array(101).fill(1), 'associated_press_releases')).toThrow(
      tooMany('associated_press_releases', 100),
    );
    expect(() => f.strings(Array(101).fill('a'), 'Keywords')).toThrow(tooMany('Keywords', 100));
    expect(() => f.objects(Array(101).fill({}), 'Securities', (o) => o)).toThrow(tooMany('Securities', 100));
    expect(f.array(Array(8).fill(1), 'conditions', 'conditions')).toHaveLength(8);
    expect(() => f.array(Array(9).fill(1), 'conditions', 'conditions')).toThrow(tooMany('conditions', 8));
  });

  it('opaque JSON: at most TEXT_LIMITS.json characters as JSON text, nested at most 32 deep; absent is null', () => {
    expect(f.anyJson(undefined, 'Raw')).toBeNull();
    for (const shape of ['object', 'list'] as const) {
      const at = jsonOfLength(TEXT_LIMITS.json, shape);
      expect(f.anyJson(at, 'Raw')).toBe(at);
      expect(() => f.anyJson(jsonOfLength(TEXT_LIMITS.json + 1, shape), 'Raw')).toThrow(
        `Raw: must be at most 16384 characters as JSON text, got 16385 characters (`,
      );
    }
    // escapes count as JSON writes them: a control character is six
    expect(() => f.anyJson({ k: `${pad(TEXT_LIMITS.json - 13)}\u0001` }, 'Raw')).toThrow('got 16385 characters');
    // an integer past 2^53 (a bigint from ingest/json.ts) is measured, as its digits in quotes
    expect(f.anyJson([12345678901234567890n, pad(TEXT_LIMITS.json - 27)], 'Raw')).toHaveLength(2);
    expect(() => f.anyJson([12345678901234567890n, pad(TEXT_LIMITS.json - 26)], 'Raw')).toThrow('got 16385 characters');
    const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);
    expect(f.anyJson(nested(32), 'Raw')).toEqual(nested(32));
    expect(() => f.anyJson(nested(33), 'Raw')).toThrow(
      'Raw: must be JSON nested at most 32 levels deep, got deeper nesting',
    );
    // as deep as JSON.parse (so the import) gives it, past the stack of a recursive reader
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(() => f.anyJson(JSON.parse(deep), 'Raw')).toThrow(
      'Raw: must be JSON nested at most 32 levels deep, got deeper nesting',
    );
  });
});

describe('insights computed from filing text', () => {
  it('keep their headings short: a longer one is cut at a word and ends with an ellipsis', () => {
    const sentence = (word: string) =>
      `${`${`${word} `.repeat(Math.ceil(280 / (word.length + 1)))}`.slice(0, 279).trimEnd()}.`;
    // two headings (one-sentence paragraphs over a body) of 280 characters, and a bullet whose first sentence is longer
    const text = [
      sentence('Supplier'),
      'Some components are available only from single suppliers. A shortage could harm our results.',
      sentence('Litigation'),
      'A competitor filed a patent infringement lawsuit against us in March 2024. We may lose.',
      `• ${sentence('Damages')} Claims could hurt us.`,
    ].join('\n\n');
    const headings = [riskFactorsInsight(text).mostNegativeRisk!.heading, ...litigationInsight(text).recentHeadings];
    expect(headings.length).toBeGreaterThan(1);
    for (const heading of headings) {
      expect(heading.length, heading).toBeLessThanOrEqual(TEXT_LIMITS.short);
      expect(heading.endsWith('…'), heading).toBe(true);
    }
  });
});
describe('FIELD_TEXT_KINDS and FIELD_LIST_KINDS name the schema as it is', () => {
  const fieldOf = (coordinate: string) => {
    const [typeName, fieldName] = coordinate.split('.');
    const type = schema.getType(typeName!);
    expect(isObjectType(type), `${typeName} is an object type`).toBe(true);
    const field = isObjectType(type) ? type.getFields()[fieldName!] : undefined;
    expect(field, `${coordinate} is a field`).toBeDefined();
    return field!;
  };

  it('every coordinate of FIELD_TEXT_KINDS is a String, URL or JSON field (or a list of String), JSON exactly when its kind is', () => {
    for (const [coordinate, kind] of Object.entries(FIELD_TEXT_KINDS)) {
      const field = fieldOf(coordinate);
      expect(['String', 'URL', 'JSON'], coordinate).toContain(getNamedType(field.type).name);
      expect(kind === 'json', `${coordinate}: json exactly when the field is JSON`).toBe(
        getNamedType(field.type).name === 'JSON',
      );
    }
  });

  it('every list field of the schema is in FIELD_LIST_KINDS, or pages, or holds nothing imported', () => {
    // bars are computed, nodes/apiKeys/OCR results are not imported children, connections page
    // search facets and highlights are computed per request; exchanges are answered whole, at most MAX_EXCHANGES;
    // securitiesBySymbols holds one item per symbol asked for, at most MAX_SYMBOLS; conditions and the
    // market calendar and the ticker types are computed (domain/conditions.ts, domain/market-calendar.ts,
    // domain/ticker-types.ts), not imported;
    // a symbol history is answered whole, at most MAX_SYMBOL_PERIODS; snapshots hold one item per
    // symbol asked for, at most MAX_SYMBOLS, and the movers at most MOVERS.count
    const notImported = new Set([
      'Query.snapshots',
      'Query.movers',
      'Query.apiKeys',
      'Query.nodes',
      'Query.securitiesBySymbols',
      'Query.exchanges',
      'Query.conditions',
      'Condition.dataTypes',
      'Query.marketCalendar',
      'Query.tickerTypes',
      'Security.symbolHistory',
      'OcrPayload.results',
      'Security.bars',
      'SecurityFacet.counts',
      'SecurityEdge.highlights',
      'SearchHighlight.matchedTokens',
    ]);
    const lists: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__') || type.name.endsWith('Connection')) continue;
      for (const field of Object.values(type.getFields())) {
        const coordinate = `${type.name}.${field.name}`;
        if (isListType(getNullableType(field.type)) && !notImported.has(coordinate)) lists.push(coordinate);
      }
    }
    expect(lists.sort()).toEqual(Object.keys(FIELD_LIST_KINDS).sort());
  });
});
