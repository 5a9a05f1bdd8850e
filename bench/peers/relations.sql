-- The relations the gateway derives by symbol, for PostGraphile (bench/peers.ts applies this to
-- the scratch schema it seeded, before bench/peers/postgraphile-server.ts starts). Our tables have
-- no foreign key from "Security" to what links to it by symbol, so PostGraphile would see no
-- relation: these STABLE SQL functions are its documented way to add them (computed columns), and
-- each returns what the gateway's field returns, in the same order (src/services/*.ts).
-- Table names are unqualified: the PostGraphile server's connections put the scratch schema on
-- their search_path, as the gateway's own do (src/db/client.ts). No SET clause on the functions,
-- so PostgreSQL may inline the set-returning ones into PostGraphile's queries.

-- Security.logo (src/services/logo.ts LOGOS_BY_SYMBOL): the logo of the symbol.
CREATE FUNCTION security_logo(s "Security") RETURNS "Logo" LANGUAGE sql STABLE AS $$
  SELECT l.* FROM "Logo" l WHERE l."symbol" = s."symbol"
$$;
COMMENT ON FUNCTION security_logo("Security") IS E'@fieldName logo';

-- Security.latestQuote (src/services/tick.ts ticksBySymbol, first row): newest by (sipTimestamp, sequenceNumber).
CREATE FUNCTION security_latest_quote(s "Security") RETURNS "Quote" LANGUAGE sql STABLE AS $$
  SELECT q.* FROM "Quote" q WHERE q."symbol" = s."symbol"
  ORDER BY q."sipTimestamp" DESC, q."sequenceNumber" DESC LIMIT 1
$$;
COMMENT ON FUNCTION security_latest_quote("Security") IS E'@fieldName latestQuote';

-- Security.latestBalanceSheet (src/services/balance-sheet.ts latestBalanceSheets): through the
-- symbol rows, the latest reporting period end, ties by id.
CREATE FUNCTION security_latest_balance_sheet(s "Security") RETURNS "BalanceSheet" LANGUAGE sql STABLE AS $$
  SELECT b.* FROM "BalanceSheet" b JOIN "BalanceSheetSymbol" bs ON bs."balanceSheetId" = b."id"
  WHERE bs."symbol" = s."symbol"
  ORDER BY b."reportingPeriodEnd" DESC, b."id" DESC LIMIT 1
$$;
COMMENT ON FUNCTION security_latest_balance_sheet("Security") IS E'@fieldName latestBalanceSheet';

-- Security.ratings (src/services/rating.ts): the ticker's ratings, newest first, (createdAt, id) descending.
CREATE FUNCTION security_ratings(s "Security") RETURNS SETOF "Rating" LANGUAGE sql STABLE AS $$
  SELECT r.* FROM "Rating" r WHERE r."ticker" = s."symbol" ORDER BY r."createdAt" DESC, r."id" DESC
$$;
COMMENT ON FUNCTION security_ratings("Security") IS E'@fieldName ratings';

-- Security.news (src/services/news.ts newsByTicker): the ticker's news items, (createdAt, id) descending.
CREATE FUNCTION security_news(s "Security") RETURNS SETOF "NewsItem" LANGUAGE sql STABLE AS $$
  SELECT n.* FROM "NewsItem" n WHERE n."ticker" = s."symbol" ORDER BY n."createdAt" DESC, n."id" DESC
$$;
COMMENT ON FUNCTION security_news("Security") IS E'@fieldName news';

-- Security.trades (src/services/tick.ts): newest first, (sipTimestamp, sequenceNumber) descending.
CREATE FUNCTION security_trades(s "Security") RETURNS SETOF "Trade" LANGUAGE sql STABLE AS $$
  SELECT t.* FROM "Trade" t WHERE t."symbol" = s."symbol" ORDER BY t."sipTimestamp" DESC, t."sequenceNumber" DESC
$$;
COMMENT ON FUNCTION security_trades("Security") IS E'@fieldName trades';

-- NewsItem.associatedPressReleases (src/schema/news.ts): the releases whose ids the item's JSON
-- array lists, in the array's order, integers only, ids without a record skipped. PostGraphile
-- already names the JSON column `associatedPressReleases`, so this field is `pressReleases`.
CREATE FUNCTION news_item_associated_press_releases(n "NewsItem") RETURNS SETOF "PressRelease" LANGUAGE sql STABLE AS $$
  SELECT p.* FROM jsonb_array_elements(n."associatedPressReleases") WITH ORDINALITY AS e(v, ord)
  JOIN "PressRelease" p ON p."id" = CASE WHEN jsonb_typeof(e.v) = 'number' AND e.v::text ~ '^-?[0-9]{1,9}$' THEN e.v::text::int END
  ORDER BY e.ord
$$;
COMMENT ON FUNCTION news_item_associated_press_releases("NewsItem") IS E'@fieldName pressReleases\n@behavior -connection +list';
