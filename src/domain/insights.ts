/**
 * Text-derived insights of an enhanced fundamentals record (docs/data.md): pure functions from the
 * plain text of three filing sections (Item 1A risk factors, Item 7 MD&A, Item 3 legal
 * proceedings) to the legacy record's `risk_factors`, `mdna` and `litigation_mentions` objects. The word
 * lists are data: lexicon/financial-sentiment.json (positive, negative, uncertainty,
 * litigious and negation words, after Loughran & McDonald 2011; our own selection) and
 * lexicon/insight-terms.json (risk themes, MD&A topics, forward-looking and historical
 * markers).
 *
 * Reading plain text:
 * - Words: the text lower-cased, possessive 's dropped, runs of letters. A list word also matches
 *   its simple inflections (-s, -es, -ies, -ed, -ied, -ing, -ly); a phrase matches word by word;
 *   at each position the longest matching entry wins and entries do not overlap. Forward-looking
 *   and historical markers match exactly.
 * - Paragraphs are separated by blank lines; a text without blank lines has one per line.
 *   Sentences end at . ! or ? followed by space and a capital, digit, quote or parenthesis.
 * - Items (a risk factor, a legal matter): a paragraph that starts with a bullet or a number
 *   (`•`, `-`, `*`, `1.`, `(a)` ...) starts an item, headed by its first sentence. So does a
 *   heading: a one-sentence paragraph of at most 300 characters followed by a paragraph that is
 *   neither (its body). An item runs to the next start; a one-sentence paragraph followed by
 *   another is a caption ("Risks Related to Our Business") and is skipped, as is the text before
 *   the first item. A text with fewer than two starts is plain paragraphs: each is an item headed
 *   by its first sentence, except a title (at most 300 characters without closing punctuation:
 *   "Item 3. Legal Proceedings"). A heading longer than 256 characters (src/domain/limits.ts) is
 *   cut at a word before that and ends with "…".
 *
 * Scores:
 * - tone = (P − N) / (P + N) over a span's words, in [-1, 1], 0 when it has neither; P counts
 *   positive words, N negative ones plus positive words with a negator (no, not, none, neither,
 *   never, nobody, cannot) among the three words before them (Loughran & McDonald's negation
 *   rule, plus "cannot", which tokenizes as one word).
 * - risk_factors: count = items; average_sentiment_score = mean item tone; most_negative_risk =
 *   the item of lowest tone (the first on ties); top_themes = up to 4 themes by the number of
 *   items mentioning them (list order on ties). With no items: count 0, no themes, null average
 *   and null most_negative_risk.
 * - mdna: forward_looking_term_count = forward-looking markers in the section;
 *   forward_to_historical_ratio = sentences with a forward-looking marker ÷ sentences with a
 *   historical marker and no forward-looking one (null when there are none of the latter);
 *   tone_score = tone of the whole section; key_topics = up to 4 topics by mentions.
 * - litigation_mentions: count = items with a litigious word that no negator precedes in its
 *   sentence ("we are not party to any litigation" is not a mention); recent_headings = the
 *   headings of up to 3 of them, latest first by the latest date each mentions (yyyy-mm-dd,
 *   "Month d, yyyy", "Month yyyy" or a year 1900-2099), undated ones last, in text order.
 * Scores and ratios are rounded to 3 decimals.
 */
import sentimentWords from '../../lexicon/financial-sentiment.json' with { type: 'json' };
import { TEXT_LIMITS } from './limits.js';
import insightTerms from '../../lexicon/insight-terms.json' with { type: 'json' };

export interface RiskFactorsInsight {
  count: number;
  topThemes: string[];
  averageSentimentScore: number | null;
  mostNegativeRisk: { heading: string; sentiment: number } | null;
}

export interface MdnaInsight {
  forwardLookingTermCount: number;
  forwardToHistoricalRatio: number | null;
  toneScore: number;
  keyTopics: string[];
}

export interface LitigationInsight {
  count: number;
  recentHeadings: string[];
}

const TOP_THEMES = 4;
const KEY_TOPICS = 4;
const RECENT_HEADINGS = 3;
const HEADING_MAX = 300;
const NEGATION_WINDOW = 3;

// ------------------------------------------------------------------ words and lists

export function tokenize(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/['’]s\b/g, '')
      .match(/[a-z]+/g) ?? []
  );
}

/** The forms a list word may take in text, i.e. the token with a simple inflection removed. */
function baseForms(token: string): string[] {
  const forms = [token];
  const add = (stem: string) => {
    if (stem.length >= 3) forms.push(stem);
  };
  if (/(?:ies|ied)$/.test(token)) add(`${token.slice(0, -3)}y`);
  if (token.endsWith('es')) add(token.slice(0, -2));
  if (token.endsWith('s') && !token.endsWith('ss')) add(token.slice(0, -1));
  if (token.endsWith('ed')) add(token.slice(0, -2)), add(token.slice(0, -1));
  if (token.endsWith('ing')) add(token.slice(0, -3)), add(`${token.slice(0, -3)}e`);
  if (token.endsWith('ly')) add(token.slice(0, -2));
  return forms;
}

interface Match<L> {
  label: L;
  start: number;
  length: number;
}

/** Words and phrases, each with a label; finds them in a token list. */
class Lexicon<L> {
  private readonly byFirst = new Map<string, { words: string[]; label: L }[]>();

  constructor(
    entries: Iterable<[term: string, label: L]>,
    private readonly inflected: boolean,
  ) {
    for (const [term, label] of entries) {
      const words = tokenize(term);
      if (words.length === 0) continue;
      const list = this.byFirst.get(words[0]!) ?? [];
      list.push({ words, label });
      this.byFirst.set(words[0]!, list);
    }
    for (const list of this.byFirst.values()) list.sort((a, b) => b.words.length - a.words.length);
  }

  private forms(token: string): string[] {
    return this.inflected ? baseForms(token) : [token];
  }

  /** Longest entry at each position, left to right, without overlaps. */
  matches(tokens: readonly string[]): Match<L>[] {
    const out: Match<L>[] = [];
    for (let i = 0; i < tokens.length; ) {
      let best: { words: string[]; label: L } | undefined;
      for (const form of this.forms(tokens[i]!)) {
        for (const entry of this.byFirst.get(form) ?? []) {
          if (best && best.words.length >= entry.words.length) continue;
          if (entry.words.every((w, k) => k === 0 || (i + k < tokens.length && this.forms(tokens[i + k]!).includes(w))))
            best = entry;
        }
      }
      if (best) {
        out.push({ label: best.label, start: i, length: best.words.length });
        i += best.words.length;
      } else i++;
    }
    return out;
  }
}

type Sentiment = 'positive' | 'negative' | 'uncertainty' | 'litigious';

interface Lists {
  sentiment: Lexicon<Sentiment>;
  negators: ReadonlySet<string>;
  themes: Lexicon<string>;
  themeOrder: string[];
  topics: Lexicon<string>;
  topicOrder: string[];
  forward: Lexicon<true>;
  historical: Lexicon<true>;
}

let lists: Lists | undefined;
// built on first use, not on import
function wordLists(): Lists {
  if (lists) return lists;
  const categories: Sentiment[] = ['positive', 'negative', 'uncertainty', 'litigious'];
  const labelled = (groups: Record<string, string[]>) =>
    Object.entries(groups).flatMap(([label, terms]) => terms.map((t): [string, string] => [t, label]));
  lists = {
    sentiment: new Lexicon(
      categories.flatMap((c) => sentimentWords[c].map((w): [string, Sentiment] => [w, c])),
      true,
    ),
    negators: new Set(sentimentWords.negators),
    themes: new Lexicon(labelled(insightTerms.risk_themes), true),
    themeOrder: Object.keys(insightTerms.risk_themes),
    topics: new Lexicon(labelled(insightTerms.mdna_topics), true),
    topicOrder: Object.keys(insightTerms.mdna_topics),
    forward: new Lexicon(
      insightTerms.forward_looking.map((t): [string, true] => [t, true]),
      false,
    ),
    historical: new Lexicon(
      insightTerms.historical.map((t): [string, true] => [t, true]),
      false,
    ),
  };
  return lists;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000 + 0;

/** (P − N) / (P + N), see the module comment; 0 without sentiment words. */
export function toneOf(tokens: readonly string[]): number {
  const { sentiment, negators } = wordLists();
  let positive = 0;
  let negative = 0;
  for (const m of sentiment.matches(tokens)) {
    if (m.label === 'negative') negative++;
    else if (m.label === 'positive') {
      const before = tokens.slice(Math.max(0, m.start - NEGATION_WINDOW), m.start);
      if (before.some((t) => negators.has(t))) negative++;
      else positive++;
    }
  }
  return positive + negative === 0 ? 0 : round3((positive - negative) / (positive + negative));
}

/** Labels by how often they occur (or in how many spans), most first, list order on ties. */
function topLabels(counts: Map<string, number>, order: readonly string[], limit: number): string[] {
  return [...counts.entries()]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || order.indexOf(a[0]) - order.indexOf(b[0]))
    .slice(0, limit)
    .map(([label]) => label);
}

// ------------------------------------------------------------------ paragraphs, sentences, items

export function paragraphsOf(text: string): string[] {
  const normalized = text.replace(/\r\n?/g, '\n');
  const blocks = /\n[ \t]*\n/.test(normalized) ? normalized.split(/\n[ \t]*\n/) : normalized.split('\n');
  return blocks.map((b) => b.replace(/\s+/g, ' ').trim()).filter((b) => b !== '');
}

export function sentencesOf(paragraph: string): string[] {
  return paragraph
    .split(/(?<=[.!?])\s+(?=["“(]?[A-Z0-9])/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export interface TextItem {
  heading: string;
  text: string;
}

const BULLET = /^(?:[•●▪◦‣*–—-]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+/;

/** A heading as stored and served: short text (src/domain/limits.ts), cut at a word with an ellipsis. */
const clipHeading = (s: string): string =>
  s.length <= TEXT_LIMITS.short ? s : `${s.slice(0, TEXT_LIMITS.short - 1).replace(/\s+\S*$/, '')}…`;

const firstSentence = (paragraph: string): string => clipHeading(sentencesOf(paragraph)[0] ?? paragraph);

/** The risk factors or legal matters of a section: see "Items" in the module comment. */
export function itemsOf(text: string): TextItem[] {
  const paragraphs = paragraphsOf(text);
  const bullet = (p: string) => BULLET.test(p);
  const short = (p: string) => !bullet(p) && p.length <= HEADING_MAX && sentencesOf(p).length === 1;
  const heading = (i: number) =>
    short(paragraphs[i]!) && i + 1 < paragraphs.length && !short(paragraphs[i + 1]!) && !bullet(paragraphs[i + 1]!);
  const starts = paragraphs.filter((p, i) => bullet(p) || heading(i)).length;
  if (starts < 2) {
    // plain paragraphs: each is an item, but a title ("Item 3. Legal Proceedings") is not
    return paragraphs
      .filter((p) => !(p.length <= HEADING_MAX && !/[.!?]["”)]?$/.test(p)))
      .map((p) => ({ heading: firstSentence(p), text: p }));
  }
  const items: TextItem[] = [];
  let current: TextItem | undefined;
  paragraphs.forEach((p, i) => {
    if (bullet(p)) {
      const body = p.replace(BULLET, '');
      items.push((current = { heading: firstSentence(body), text: body }));
    } else if (heading(i)) {
      items.push((current = { heading: clipHeading(p), text: p }));
    } else if (short(p) && i + 1 < paragraphs.length) {
      // a caption over the items that follow
    } else if (current) {
      current.text += `\n${p}`;
    }
  });
  return items;
}

// ------------------------------------------------------------------ the three insights

export function riskFactorsInsight(text: string): RiskFactorsInsight {
  const { themes, themeOrder } = wordLists();
  const items = itemsOf(text);
  const themeItems = new Map<string, number>();
  const scored = items.map((item) => {
    const tokens = tokenize(item.text);
    for (const theme of new Set(themes.matches(tokens).map((m) => m.label)))
      themeItems.set(theme, (themeItems.get(theme) ?? 0) + 1);
    return { heading: item.heading, sentiment: toneOf(tokens) };
  });
  const mostNegative = scored.reduce<(typeof scored)[number] | null>(
    (min, s) => (min === null || s.sentiment < min.sentiment ? s : min),
    null,
  );
  return {
    count: items.length,
    topThemes: topLabels(themeItems, themeOrder, TOP_THEMES),
    averageSentimentScore: scored.length
      ? round3(scored.reduce((sum, s) => sum + s.sentiment, 0) / scored.length)
      : null,
    mostNegativeRisk: mostNegative,
  };
}

export function mdnaInsight(text: string): MdnaInsight {
  const { forward, historical, topics, topicOrder } = wordLists();
  const tokens = tokenize(text);
  let forwardSentences = 0;
  let historicalSentences = 0;
  for (const sentence of paragraphsOf(text).flatMap(sentencesOf)) {
    const words = tokenize(sentence);
    if (forward.matches(words).length > 0) forwardSentences++;
    else if (historical.matches(words).length > 0) historicalSentences++;
  }
  const topicCounts = new Map<string, number>();
  for (const m of topics.matches(tokens)) topicCounts.set(m.label, (topicCounts.get(m.label) ?? 0) + 1);
  return {
    forwardLookingTermCount: forward.matches(tokens).length,
    forwardToHistoricalRatio: historicalSentences === 0 ? null : round3(forwardSentences / historicalSentences),
    toneScore: toneOf(tokens),
    keyTopics: topLabels(topicCounts, topicOrder, KEY_TOPICS),
  };
}

export function litigationInsight(text: string): LitigationInsight {
  const { sentiment, negators } = wordLists();
  const mentions = (item: TextItem) =>
    paragraphsOf(item.text)
      .flatMap(sentencesOf)
      .some((sentence) => {
        const words = tokenize(sentence);
        return sentiment
          .matches(words)
          .some((m) => m.label === 'litigious' && !words.slice(0, m.start).some((w) => negators.has(w)));
      });
  const matters = itemsOf(text).filter(mentions);
  const recent = matters
    .map((item, position) => ({ item, position, date: latestDate(item.text) }))
    .sort((a, b) => b.date - a.date || a.position - b.position);
  return { count: matters.length, recentHeadings: recent.slice(0, RECENT_HEADINGS).map((r) => r.item.heading) };
}

// ------------------------------------------------------------------ dates

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH =
  '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?';
const DATE_PATTERNS: [RegExp, (m: RegExpExecArray) => number][] = [
  [/\b((?:19|20)\d{2})-(\d{2})-(\d{2})\b/g, (m) => Number(m[1]) * 10_000 + Number(m[2]) * 100 + Number(m[3])],
  [
    new RegExp(`\\b${MONTH}\\s+(\\d{1,2}),?\\s+((?:19|20)\\d{2})\\b`, 'g'),
    (m) => Number(m[3]) * 10_000 + monthOf(m[1]!) * 100 + Number(m[2]),
  ],
  [new RegExp(`\\b${MONTH}\\s+((?:19|20)\\d{2})\\b`, 'g'), (m) => Number(m[2]) * 10_000 + monthOf(m[1]!) * 100],
  [/\b((?:19|20)\d{2})\b/g, (m) => Number(m[1]) * 10_000],
];

function monthOf(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1;
}

/** yyyymmdd of the latest date a text mentions (month and day 0 when not given), 0 when none. */
export function latestDate(text: string): number {
  let latest = 0;
  for (const [pattern, value] of DATE_PATTERNS) {
    for (const m of text.matchAll(pattern)) latest = Math.max(latest, value(m as RegExpExecArray));
  }
  return latest;
}
