-- CreateTable
CREATE TABLE "MinuteBar" (
    "symbol" TEXT NOT NULL,
    "minute" INTEGER NOT NULL,
    "day" INTEGER NOT NULL,
    "local" SMALLINT NOT NULL,
    "session" SMALLINT NOT NULL,
    "open" DOUBLE PRECISION,
    "high" DOUBLE PRECISION,
    "low" DOUBLE PRECISION,
    "close" DOUBLE PRECISION,
    "volume" DOUBLE PRECISION NOT NULL,
    "vwap" DOUBLE PRECISION,
    "trades" INTEGER NOT NULL,

    CONSTRAINT "MinuteBar_pkey" PRIMARY KEY ("symbol","minute")
);

-- CreateTable
CREATE TABLE "DayBar" (
    "symbol" TEXT NOT NULL,
    "extended" BOOLEAN NOT NULL,
    "day" INTEGER NOT NULL,
    "open" DOUBLE PRECISION,
    "high" DOUBLE PRECISION,
    "low" DOUBLE PRECISION,
    "close" DOUBLE PRECISION,
    "volume" DOUBLE PRECISION NOT NULL,
    "vwap" DOUBLE PRECISION,
    "trades" INTEGER NOT NULL,

    CONSTRAINT "DayBar_pkey" PRIMARY KEY ("symbol","extended","day")
);

-- CreateTable
CREATE TABLE "Split" (
    "id" TEXT NOT NULL,
    "ticker" TEXT NOT NULL,
    "executionDate" TEXT NOT NULL,
    "splitFrom" DOUBLE PRECISION NOT NULL,
    "splitTo" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "Split_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Dividend" (
    "id" TEXT NOT NULL,
    "ticker" TEXT NOT NULL,
    "cashAmount" DOUBLE PRECISION NOT NULL,
    "currency" TEXT,
    "declarationDate" TEXT,
    "exDividendDate" TEXT NOT NULL,
    "payDate" TEXT,
    "recordDate" TEXT,
    "frequency" INTEGER NOT NULL,
    "dividendType" TEXT NOT NULL,

    CONSTRAINT "Dividend_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SymbolHistory" (
    "securityId" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "startDate" TEXT NOT NULL,

    CONSTRAINT "SymbolHistory_pkey" PRIMARY KEY ("securityId","startDate")
);

-- CreateIndex
CREATE INDEX "DayBar_day_extended_idx" ON "DayBar"("day", "extended");

-- CreateIndex
CREATE INDEX "Split_ticker_executionDate_idx" ON "Split"("ticker", "executionDate");

-- CreateIndex
CREATE INDEX "Split_executionDate_id_idx" ON "Split"("executionDate", "id");

-- CreateIndex
CREATE INDEX "Dividend_ticker_exDividendDate_idx" ON "Dividend"("ticker", "exDividendDate");

-- CreateIndex
CREATE INDEX "Dividend_exDividendDate_id_idx" ON "Dividend"("exDividendDate", "id");

-- CreateIndex
CREATE INDEX "SymbolHistory_symbol_startDate_idx" ON "SymbolHistory"("symbol", "startDate");
