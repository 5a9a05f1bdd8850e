-- CreateTable
CREATE TABLE "Snapshot" (
    "symbol" TEXT NOT NULL,
    "tradeAt" BIGINT,
    "tradeSequence" BIGINT,
    "tradeId" TEXT,
    "tradePrice" DOUBLE PRECISION,
    "tradeSize" DOUBLE PRECISION,
    "tradeExchange" INTEGER,
    "tradeConditions" JSONB,
    "quoteAt" BIGINT,
    "quoteSequence" BIGINT,
    "bidPrice" DOUBLE PRECISION,
    "bidSize" DOUBLE PRECISION,
    "bidExchange" INTEGER,
    "askPrice" DOUBLE PRECISION,
    "askSize" DOUBLE PRECISION,
    "askExchange" INTEGER,
    "minuteBar" JSONB,
    "day" INTEGER,
    "dayBar" JSONB,
    "prevDay" INTEGER,
    "prevDayBar" JSONB,
    "todaysChange" DOUBLE PRECISION,
    "todaysChangePerc" DOUBLE PRECISION,
    "moverPerc" DOUBLE PRECISION,
    "updated" BIGINT NOT NULL,

    CONSTRAINT "Snapshot_pkey" PRIMARY KEY ("symbol")
);

-- CreateIndex
CREATE INDEX "Snapshot_moverPerc_symbol_idx" ON "Snapshot"("moverPerc", "symbol");

-- Fill: every stored symbol's snapshot, by the rule services/snapshot.ts keeps them with (refreshStatement) as of this migration
WITH k AS ((WITH RECURSIVE s AS (
      SELECT min("symbol") AS "symbol" FROM "Trade"
      UNION ALL SELECT (SELECT min(x."symbol") FROM "Trade" x WHERE x."symbol" > s."symbol") FROM s WHERE s."symbol" IS NOT NULL
    ) SELECT "symbol" FROM s WHERE "symbol" IS NOT NULL) UNION (WITH RECURSIVE s AS (
      SELECT min("symbol") AS "symbol" FROM "Quote"
      UNION ALL SELECT (SELECT min(x."symbol") FROM "Quote" x WHERE x."symbol" > s."symbol") FROM s WHERE s."symbol" IS NOT NULL
    ) SELECT "symbol" FROM s WHERE "symbol" IS NOT NULL) UNION (WITH RECURSIVE s AS (
      SELECT min("symbol") AS "symbol" FROM "MinuteBar"
      UNION ALL SELECT (SELECT min(x."symbol") FROM "MinuteBar" x WHERE x."symbol" > s."symbol") FROM s WHERE s."symbol" IS NOT NULL
    ) SELECT "symbol" FROM s WHERE "symbol" IS NOT NULL) UNION (WITH RECURSIVE s AS (
      SELECT min("symbol") AS "symbol" FROM "DayBar"
      UNION ALL SELECT (SELECT min(x."symbol") FROM "DayBar" x WHERE x."symbol" > s."symbol") FROM s WHERE s."symbol" IS NOT NULL
    ) SELECT "symbol" FROM s WHERE "symbol" IS NOT NULL)), fresh AS (
    SELECT k."symbol", t.*, q.*, m."minuteBar", m."minute", d."day", d."dayBar", d."dayClose", d."dayVolume",
      p."prevDay", p."prevDayBar", p."prevClose"
    FROM k
    LEFT JOIN LATERAL (
      SELECT x."sipTimestamp" AS "tradeAt", x."sequenceNumber" AS "tradeSequence", x."tradeId", x."price" AS "tradePrice",
        x."size" AS "tradeSize", x."exchange" AS "tradeExchange", x."conditions" AS "tradeConditions"
      FROM "Trade" x WHERE x."symbol" = k."symbol" ORDER BY x."sipTimestamp" DESC, x."sequenceNumber" DESC LIMIT 1
    ) t ON true
    LEFT JOIN LATERAL (
      SELECT x."sipTimestamp" AS "quoteAt", x."sequenceNumber" AS "quoteSequence", x."bidPrice", x."bidSize",
        x."bidExchange", x."askPrice", x."askSize", x."askExchange"
      FROM "Quote" x WHERE x."symbol" = k."symbol" ORDER BY x."sipTimestamp" DESC, x."sequenceNumber" DESC LIMIT 1
    ) q ON true
    LEFT JOIN LATERAL (
      SELECT x."minute", x."day", jsonb_build_object('t', x."minute"::bigint * 60000, 'o', x."open", 'h', x."high", 'l', x."low", 'c', x."close", 'v', x."volume", 'vw', x."vwap", 'n', x."trades") AS "minuteBar"
      FROM "MinuteBar" x WHERE x."symbol" = k."symbol" AND x."open" IS NOT NULL AND x."high" IS NOT NULL ORDER BY x."minute" DESC LIMIT 1
    ) m ON true
    LEFT JOIN LATERAL (
      SELECT x."day", jsonb_build_object('o', x."open", 'h', x."high", 'l', x."low", 'c', x."close", 'v', x."volume", 'vw', x."vwap", 'n', x."trades") AS "dayBar", x."close" AS "dayClose", x."volume" AS "dayVolume"
      FROM "DayBar" x
      WHERE x."symbol" = k."symbol" AND x."open" IS NOT NULL AND x."high" IS NOT NULL AND x."day" = COALESCE(m."day",
        (SELECT max(y."day") FROM "DayBar" y WHERE y."symbol" = k."symbol" AND y."extended" = false AND y."open" IS NOT NULL AND y."high" IS NOT NULL))
      ORDER BY x."extended" DESC LIMIT 1
    ) d ON true
    LEFT JOIN LATERAL (
      SELECT x."day" AS "prevDay", jsonb_build_object('o', x."open", 'h', x."high", 'l', x."low", 'c', x."close", 'v', x."volume", 'vw', x."vwap", 'n', x."trades") AS "prevDayBar", x."close" AS "prevClose"
      FROM "DayBar" x WHERE x."symbol" = k."symbol" AND x."extended" = false AND x."day" < d."day" AND x."open" IS NOT NULL AND x."high" IS NOT NULL
      ORDER BY x."day" DESC LIMIT 1
    ) p ON true
  ), priced AS (
    SELECT f.*, COALESCE(f."tradePrice", f."dayClose") - f."prevClose" AS "todaysChange",
      (COALESCE(f."tradePrice", f."dayClose") - f."prevClose") / NULLIF(f."prevClose", 0) * 100 AS "todaysChangePerc"
    FROM fresh f
  ), gone AS (
    DELETE FROM "Snapshot" s USING priced f
    WHERE s."symbol" = f."symbol" AND f."tradeAt" IS NULL AND f."quoteAt" IS NULL AND f."day" IS NULL
  )
  INSERT INTO "Snapshot" ("symbol", "tradeAt", "tradeSequence", "tradeId", "tradePrice", "tradeSize", "tradeExchange", "tradeConditions", "quoteAt", "quoteSequence", "bidPrice", "bidSize", "bidExchange", "askPrice", "askSize", "askExchange", "minuteBar", "day", "dayBar", "prevDay", "prevDayBar", "todaysChange", "todaysChangePerc", "moverPerc", "updated")
  SELECT "symbol", "tradeAt", "tradeSequence", "tradeId", "tradePrice", "tradeSize", "tradeExchange", "tradeConditions",
    "quoteAt", "quoteSequence", "bidPrice", "bidSize", "bidExchange", "askPrice", "askSize", "askExchange",
    "minuteBar", "day", "dayBar", "prevDay", "prevDayBar", "todaysChange", "todaysChangePerc",
    CASE WHEN "dayVolume" >= 10000 THEN "todaysChangePerc" END,
    COALESCE(GREATEST("tradeAt", "quoteAt"), "minute"::bigint * 60000000000, 0)
  FROM priced WHERE "tradeAt" IS NOT NULL OR "quoteAt" IS NOT NULL OR "day" IS NOT NULL
  ON CONFLICT ("symbol") DO UPDATE SET "tradeAt" = EXCLUDED."tradeAt", "tradeSequence" = EXCLUDED."tradeSequence", "tradeId" = EXCLUDED."tradeId", "tradePrice" = EXCLUDED."tradePrice", "tradeSize" = EXCLUDED."tradeSize", "tradeExchange" = EXCLUDED."tradeExchange", "tradeConditions" = EXCLUDED."tradeConditions", "quoteAt" = EXCLUDED."quoteAt", "quoteSequence" = EXCLUDED."quoteSequence", "bidPrice" = EXCLUDED."bidPrice", "bidSize" = EXCLUDED."bidSize", "bidExchange" = EXCLUDED."bidExchange", "askPrice" = EXCLUDED."askPrice", "askSize" = EXCLUDED."askSize", "askExchange" = EXCLUDED."askExchange", "minuteBar" = EXCLUDED."minuteBar", "day" = EXCLUDED."day", "dayBar" = EXCLUDED."dayBar", "prevDay" = EXCLUDED."prevDay", "prevDayBar" = EXCLUDED."prevDayBar", "todaysChange" = EXCLUDED."todaysChange", "todaysChangePerc" = EXCLUDED."todaysChangePerc", "moverPerc" = EXCLUDED."moverPerc", "updated" = EXCLUDED."updated";
