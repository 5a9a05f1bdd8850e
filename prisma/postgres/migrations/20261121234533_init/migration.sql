-- CreateEnum
CREATE TYPE "Timeframe" AS ENUM ('quarterly', 'annual', 'trailing_twelve_months');

-- CreateEnum
CREATE TYPE "FiscalPeriod" AS ENUM ('Q1', 'Q2', 'Q3', 'Q4', 'FY');

-- CreateEnum
CREATE TYPE "NewsType" AS ENUM ('gainers', 'losers');

-- CreateEnum
CREATE TYPE "Tier" AS ENUM ('free', 'pro', 'enterprise');

-- CreateTable
CREATE TABLE "Security" (
    "id" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "isinHistory" JSONB,
    "gics" TEXT,
    "gicsCode" TEXT,
    "marketSector" TEXT,
    "securityDescription" TEXT,
    "securityType" TEXT,
    "securityType2" TEXT,
    "sicCode" TEXT,
    "sicDescription" TEXT,
    "address1" TEXT,
    "city" TEXT,
    "postalCode" TEXT,
    "state" TEXT,
    "description" TEXT,
    "homepageUrl" TEXT,
    "listDate" TEXT,
    "phoneNumber" TEXT,
    "totalEmployees" INTEGER,
    "exchangeCountry" TEXT,
    "exchangeName" TEXT,
    "micCode" TEXT NOT NULL,
    "vendoryExchangeCode" TEXT,
    "vendoryTicker" TEXT,
    "vendorxExchangeCode" TEXT,
    "vendorxExchangeName" TEXT,
    "marketCap" BIGINT,
    "roundLot" INTEGER,
    "shareClassSharesOutstanding" BIGINT,
    "weightedSharesOutstanding" BIGINT,
    "cik" TEXT,
    "cusip" TEXT,
    "figi" TEXT NOT NULL,
    "figiComposite" TEXT,
    "figiShareClass" TEXT,
    "isin" TEXT,
    "opol" TEXT,
    "permid" TEXT,
    "ric" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "currencyName" TEXT,
    "lastUpdatedUtc" TIMESTAMP(3),
    "locale" TEXT,
    "market" TEXT,
    "primaryExchange" TEXT,
    "ticker" TEXT,
    "tickerRoot" TEXT,
    "type" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Security_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Logo" (
    "id" SERIAL NOT NULL,
    "symbol" TEXT NOT NULL,
    "companyName" TEXT NOT NULL,
    "pngUrl" TEXT NOT NULL,
    "pngHeight" INTEGER NOT NULL,
    "pngWidth" INTEGER NOT NULL,
    "pngSizeKb" DOUBLE PRECISION NOT NULL,
    "svgUrl" TEXT NOT NULL,
    "svgSizeKb" DOUBLE PRECISION NOT NULL,
    "thumbnailUrl" TEXT NOT NULL,
    "thumbnailSizeKb" DOUBLE PRECISION NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Logo_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LogoSecurityInfo" (
    "logoId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "symbol" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "mic" TEXT NOT NULL,
    "figi" TEXT NOT NULL,
    "exchCode" TEXT NOT NULL,
    "compositeFigi" TEXT NOT NULL,
    "shareClassFigi" TEXT NOT NULL,
    "marketSector" TEXT NOT NULL,

    CONSTRAINT "LogoSecurityInfo_pkey" PRIMARY KEY ("logoId","position")
);

-- CreateTable
CREATE TABLE "BalanceSheet" (
    "id" SERIAL NOT NULL,
    "cik" TEXT NOT NULL,
    "fiscalYear" INTEGER NOT NULL,
    "fiscalQuarter" INTEGER NOT NULL,
    "reportingPeriodEnd" TEXT NOT NULL,
    "timeframe" "Timeframe" NOT NULL,
    "accumulatedRetainedEarnings" DOUBLE PRECISION NOT NULL,
    "acquiredGoodwill" DOUBLE PRECISION NOT NULL,
    "advanceCustomerPayments" DOUBLE PRECISION NOT NULL,
    "cashAndShortTermEquivalents" DOUBLE PRECISION NOT NULL,
    "currentAccruedLiabilities" DOUBLE PRECISION NOT NULL,
    "customerReceivables" DOUBLE PRECISION NOT NULL,
    "longTermDebtObligations" DOUBLE PRECISION NOT NULL,
    "longTermMiscellaneousLiabilities" DOUBLE PRECISION NOT NULL,
    "miscellaneousAssets" DOUBLE PRECISION NOT NULL,
    "miscellaneousCurrentAssets" DOUBLE PRECISION NOT NULL,
    "netFixedAssets" DOUBLE PRECISION NOT NULL,
    "netIntangibleAssets" DOUBLE PRECISION NOT NULL,
    "ordinaryShareCapital" DOUBLE PRECISION NOT NULL,
    "otherComprehensiveIncomeAccumulated" DOUBLE PRECISION NOT NULL,
    "otherStockholderEquity" DOUBLE PRECISION NOT NULL,
    "parentCompanyEquity" DOUBLE PRECISION NOT NULL,
    "payableToSuppliers" DOUBLE PRECISION NOT NULL,
    "shortTermDebtObligations" DOUBLE PRECISION NOT NULL,
    "sumOfCurrentAssets" DOUBLE PRECISION NOT NULL,
    "sumOfCurrentLiabilities" DOUBLE PRECISION NOT NULL,
    "totalAssets" DOUBLE PRECISION NOT NULL,
    "totalEquity" DOUBLE PRECISION NOT NULL,
    "totalLiabilities" DOUBLE PRECISION NOT NULL,
    "totalLiabilitiesPlusEquity" DOUBLE PRECISION NOT NULL,
    "capitalPaidInExcess" DOUBLE PRECISION,
    "marketableSecuritiesShortTerm" DOUBLE PRECISION,
    "minorityShareholderInterest" DOUBLE PRECISION,
    "stockInventory" DOUBLE PRECISION,
    "treasuryStock" DOUBLE PRECISION,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BalanceSheet_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BalanceSheetSymbol" (
    "balanceSheetId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "symbol" TEXT NOT NULL,

    CONSTRAINT "BalanceSheetSymbol_pkey" PRIMARY KEY ("balanceSheetId","position")
);

-- CreateTable
CREATE TABLE "Fundamental" (
    "id" SERIAL NOT NULL,
    "symbol" TEXT NOT NULL,
    "cik" TEXT NOT NULL,
    "endPeriod" TEXT NOT NULL,
    "quarter" "FiscalPeriod" NOT NULL,
    "year" INTEGER NOT NULL,
    "revenue" DOUBLE PRECISION NOT NULL,
    "costOfRevenue" DOUBLE PRECISION NOT NULL,
    "grossProfit" DOUBLE PRECISION NOT NULL,
    "sellingGeneralAdministrative" DOUBLE PRECISION NOT NULL,
    "researchDevelopment" DOUBLE PRECISION NOT NULL,
    "depreciationDepletionAmortizationExpense" DOUBLE PRECISION NOT NULL,
    "otherOperatingExpenses" DOUBLE PRECISION NOT NULL,
    "totalOperatingExpenses" DOUBLE PRECISION NOT NULL,
    "operatingIncome" DOUBLE PRECISION NOT NULL,
    "interestExpense" DOUBLE PRECISION NOT NULL,
    "interestInvestmentIncome" DOUBLE PRECISION NOT NULL,
    "otherExpenseIncome" DOUBLE PRECISION NOT NULL,
    "totalOtherIncomeExpense" DOUBLE PRECISION NOT NULL,
    "incomeBeforeIncomeTaxes" DOUBLE PRECISION NOT NULL,
    "incomeTaxes" DOUBLE PRECISION NOT NULL,
    "discontinuedOperations" DOUBLE PRECISION NOT NULL,
    "equityInAffiliates" DOUBLE PRECISION NOT NULL,
    "extraordinaryItems" DOUBLE PRECISION NOT NULL,
    "consolidatedNetIncomeLoss" DOUBLE PRECISION NOT NULL,
    "noncontrollingInterestIncome" DOUBLE PRECISION NOT NULL,
    "preferredStockDividendsDeclared" DOUBLE PRECISION NOT NULL,
    "netIncomeLossAttributableCommonShareholders" DOUBLE PRECISION NOT NULL,
    "basicEarningsPerShare" DOUBLE PRECISION NOT NULL,
    "dilutedEarningsPerShare" DOUBLE PRECISION NOT NULL,
    "basicSharesOutstanding" DOUBLE PRECISION NOT NULL,
    "dilutedSharesOutstanding" DOUBLE PRECISION NOT NULL,
    "ebitda" DOUBLE PRECISION NOT NULL,
    "cashEquivalents" DOUBLE PRECISION NOT NULL,
    "shortTermInvestments" DOUBLE PRECISION NOT NULL,
    "inventories" DOUBLE PRECISION NOT NULL,
    "prepaidExpensesOtherCurrentAssets" DOUBLE PRECISION NOT NULL,
    "totalCurrentAssets" DOUBLE PRECISION NOT NULL,
    "propertyPlantEquipmentNet" DOUBLE PRECISION NOT NULL,
    "goodwill" DOUBLE PRECISION NOT NULL,
    "intangibleAssetsNet" DOUBLE PRECISION NOT NULL,
    "otherAssets" DOUBLE PRECISION NOT NULL,
    "totalAssets" DOUBLE PRECISION NOT NULL,
    "accountsPayable" DOUBLE PRECISION NOT NULL,
    "deferredRevenueCurrent" DOUBLE PRECISION NOT NULL,
    "deferredLiabilitiesCurrent" DOUBLE PRECISION NOT NULL,
    "debtCurrent" DOUBLE PRECISION NOT NULL,
    "accruedOtherCurrentLiabilities" DOUBLE PRECISION NOT NULL,
    "totalCurrentLiabilities" DOUBLE PRECISION NOT NULL,
    "longTermDebtCapitalLeaseObligations" DOUBLE PRECISION NOT NULL,
    "otherNoncurrentLiabilities" DOUBLE PRECISION NOT NULL,
    "totalLiabilities" DOUBLE PRECISION NOT NULL,
    "commitmentsContingencies" DOUBLE PRECISION,
    "preferredStock" DOUBLE PRECISION NOT NULL,
    "commonStock" DOUBLE PRECISION NOT NULL,
    "additionalPaidInCapital" DOUBLE PRECISION NOT NULL,
    "treasuryStock" DOUBLE PRECISION NOT NULL,
    "accumulatedOtherComprehensiveIncome" DOUBLE PRECISION NOT NULL,
    "retainedEarningsDeficit" DOUBLE PRECISION NOT NULL,
    "otherEquity" DOUBLE PRECISION NOT NULL,
    "totalEquityAttributableParent" DOUBLE PRECISION NOT NULL,
    "noncontrollingInterest" DOUBLE PRECISION NOT NULL,
    "totalEquity" DOUBLE PRECISION NOT NULL,
    "totalLiabilitiesEquity" DOUBLE PRECISION NOT NULL,
    "netIncomeCashFlow" DOUBLE PRECISION NOT NULL,
    "incomeLossDiscontinuedOperations" DOUBLE PRECISION NOT NULL,
    "depreciationDepletionAmortization" DOUBLE PRECISION NOT NULL,
    "otherOperatingActivities" DOUBLE PRECISION NOT NULL,
    "changeOtherOperatingAssetsLiabilitiesNet" DOUBLE PRECISION NOT NULL,
    "cashOperatingActivitiesContinuingOperations" DOUBLE PRECISION NOT NULL,
    "netCashOperatingActivitiesDiscontinuedOperations" DOUBLE PRECISION NOT NULL,
    "netCashOperatingActivities" DOUBLE PRECISION NOT NULL,
    "purchasePropertyPlantEquipment" DOUBLE PRECISION NOT NULL,
    "salePropertyPlantEquipment" DOUBLE PRECISION NOT NULL,
    "acquisitionsNet" DOUBLE PRECISION NOT NULL,
    "otherInvestingActivities" DOUBLE PRECISION NOT NULL,
    "netCashInvestingActivitiesContinuingOperations" DOUBLE PRECISION NOT NULL,
    "netCashInvestingActivitiesDiscontinuedOperations" DOUBLE PRECISION NOT NULL,
    "netCashInvestingActivities" DOUBLE PRECISION NOT NULL,
    "shortTermDebtIssuancesRepayments" DOUBLE PRECISION NOT NULL,
    "cashDividends" DOUBLE PRECISION NOT NULL,
    "equityRepurchases" DOUBLE PRECISION NOT NULL,
    "otherFinancingActivities" DOUBLE PRECISION NOT NULL,
    "netCashFinancingActivitiesContinuingOperations" DOUBLE PRECISION NOT NULL,
    "netCashFinancingActivitiesDiscontinuedOperations" DOUBLE PRECISION NOT NULL,
    "netCashFinancingActivities" DOUBLE PRECISION NOT NULL,
    "effectCurrencyExchangeRate" DOUBLE PRECISION NOT NULL,
    "otherCashAdjustments" DOUBLE PRECISION NOT NULL,
    "changeCashEquivalents" DOUBLE PRECISION NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Fundamental_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FundamentalMetrics" (
    "fundamentalId" INTEGER NOT NULL,
    "peRatio" DOUBLE PRECISION NOT NULL,
    "priceToBook" DOUBLE PRECISION NOT NULL,
    "debtToEquity" DOUBLE PRECISION NOT NULL,
    "returnOnAssets" DOUBLE PRECISION NOT NULL,
    "returnOnEquity" DOUBLE PRECISION NOT NULL,
    "revenuePerEmployee" DOUBLE PRECISION NOT NULL,
    "roic" DOUBLE PRECISION NOT NULL,
    "fcfYield" DOUBLE PRECISION NOT NULL,
    "dso" DOUBLE PRECISION NOT NULL,
    "dio" DOUBLE PRECISION NOT NULL,
    "dpo" DOUBLE PRECISION NOT NULL,
    "riskFactorCount" INTEGER NOT NULL,
    "riskTopThemes" JSONB NOT NULL,
    "riskAverageSentimentScore" DOUBLE PRECISION NOT NULL,
    "riskMostNegativeHeading" TEXT NOT NULL,
    "riskMostNegativeSentiment" DOUBLE PRECISION NOT NULL,
    "mdnaForwardLookingTermCount" INTEGER NOT NULL,
    "mdnaForwardToHistoricalRatio" DOUBLE PRECISION NOT NULL,
    "mdnaToneScore" DOUBLE PRECISION NOT NULL,
    "mdnaKeyTopics" JSONB NOT NULL,
    "litigationCount" INTEGER NOT NULL,
    "litigationRecentHeadings" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FundamentalMetrics_pkey" PRIMARY KEY ("fundamentalId")
);

-- CreateTable
CREATE TABLE "PressRelease" (
    "id" SERIAL NOT NULL,
    "wireDataId" TEXT NOT NULL,
    "vendor" TEXT NOT NULL,
    "releaseId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "transmissionId" TEXT NOT NULL,
    "headline" TEXT NOT NULL,
    "subHeadline" TEXT NOT NULL,
    "dateline" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "publishTime" TIMESTAMP(3) NOT NULL,
    "source" TEXT NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "bodyHtml" TEXT NOT NULL,
    "bodyText" TEXT NOT NULL,
    "categories" JSONB,
    "keywords" JSONB NOT NULL,
    "externalLinks" JSONB NOT NULL,
    "exchanges" JSONB NOT NULL,
    "contacts" JSONB NOT NULL,
    "mediaAssets" JSONB,
    "raw" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "PressRelease_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PressReleaseTicker" (
    "pressReleaseId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "ticker" TEXT NOT NULL,

    CONSTRAINT "PressReleaseTicker_pkey" PRIMARY KEY ("pressReleaseId","position")
);

-- CreateTable
CREATE TABLE "PressReleaseSecurity" (
    "pressReleaseId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "figi" TEXT NOT NULL,
    "isin" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "symbol" TEXT NOT NULL,
    "micCode" TEXT NOT NULL,
    "figiComposite" TEXT NOT NULL,
    "figiShareClass" TEXT NOT NULL,
    "vendorxExchCode" TEXT NOT NULL,

    CONSTRAINT "PressReleaseSecurity_pkey" PRIMARY KEY ("pressReleaseId","position")
);

-- CreateTable
CREATE TABLE "Rating" (
    "id" INTEGER NOT NULL,
    "firm" TEXT NOT NULL,
    "ticker" TEXT NOT NULL,
    "exchange" TEXT NOT NULL,
    "company" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "rating" TEXT NOT NULL,
    "priceTarget" TEXT NOT NULL,
    "story" TEXT NOT NULL,
    "isRating" BOOLEAN NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Rating_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CallSummary" (
    "id" SERIAL NOT NULL,
    "symbol" TEXT NOT NULL,
    "companyName" TEXT NOT NULL,
    "callDate" TIMESTAMP(3) NOT NULL,
    "fiscalYear" INTEGER NOT NULL,
    "fiscalPeriod" "FiscalPeriod" NOT NULL,
    "title" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "keyPoints" JSONB NOT NULL,
    "guidance" TEXT,
    "sentimentScore" DOUBLE PRECISION NOT NULL,
    "participants" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CallSummary_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NewsItem" (
    "id" INTEGER NOT NULL,
    "newsId" TEXT NOT NULL,
    "headline" TEXT NOT NULL,
    "catalyst" TEXT NOT NULL,
    "catalystCreated" BOOLEAN NOT NULL,
    "associatedPressReleases" JSONB NOT NULL,
    "associatedRatings" JSONB NOT NULL,
    "associatedTranscripts" JSONB NOT NULL,
    "logoExists" BOOLEAN NOT NULL,
    "logoThumbnailUrl" TEXT NOT NULL,
    "onAllTickers" BOOLEAN NOT NULL,
    "onEntities" BOOLEAN NOT NULL,
    "shareClassFigi" TEXT NOT NULL,
    "ticker" TEXT NOT NULL,
    "type" "NewsType" NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NewsItem_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NewsSecurity" (
    "newsItemId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "figi" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "mic" TEXT NOT NULL,
    "exchcode" TEXT NOT NULL,
    "ticker" TEXT NOT NULL,
    "compositefigi" TEXT NOT NULL,
    "securitytype" TEXT NOT NULL,
    "marketsector" TEXT NOT NULL,
    "shareclassfigi" TEXT NOT NULL,

    CONSTRAINT "NewsSecurity_pkey" PRIMARY KEY ("newsItemId","position")
);

-- CreateTable
CREATE TABLE "Trade" (
    "symbol" TEXT NOT NULL,
    "sequenceNumber" BIGINT NOT NULL,
    "sipTimestamp" BIGINT NOT NULL,
    "tradeId" TEXT NOT NULL,
    "price" DOUBLE PRECISION NOT NULL,
    "size" DOUBLE PRECISION NOT NULL,
    "exchange" INTEGER NOT NULL,
    "tape" INTEGER NOT NULL,
    "conditions" JSONB NOT NULL,

    CONSTRAINT "Trade_pkey" PRIMARY KEY ("symbol","sequenceNumber")
);

-- CreateTable
CREATE TABLE "Quote" (
    "symbol" TEXT NOT NULL,
    "sequenceNumber" BIGINT NOT NULL,
    "sipTimestamp" BIGINT NOT NULL,
    "askExchange" INTEGER NOT NULL,
    "askPrice" DOUBLE PRECISION NOT NULL,
    "askSize" DOUBLE PRECISION NOT NULL,
    "bidExchange" INTEGER NOT NULL,
    "bidPrice" DOUBLE PRECISION NOT NULL,
    "bidSize" DOUBLE PRECISION NOT NULL,
    "tape" INTEGER NOT NULL,
    "conditions" JSONB NOT NULL,

    CONSTRAINT "Quote_pkey" PRIMARY KEY ("symbol","sequenceNumber")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "tier" "Tier" NOT NULL DEFAULT 'free',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RefreshTokenFamily" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "currentJti" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RefreshTokenFamily_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AppMeta" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AppMeta_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "Security_symbol_id_idx" ON "Security"("symbol", "id");

-- CreateIndex
CREATE INDEX "Security_figiComposite_id_idx" ON "Security"("figiComposite", "id");

-- CreateIndex
CREATE INDEX "Security_figiShareClass_id_idx" ON "Security"("figiShareClass", "id");

-- CreateIndex
CREATE INDEX "Security_isin_id_idx" ON "Security"("isin", "id");

-- CreateIndex
CREATE INDEX "Security_opol_id_idx" ON "Security"("opol", "id");

-- CreateIndex
CREATE INDEX "Security_cusip_id_idx" ON "Security"("cusip", "id");

-- CreateIndex
CREATE INDEX "Security_cik_id_idx" ON "Security"("cik", "id");

-- CreateIndex
CREATE INDEX "Security_micCode_id_idx" ON "Security"("micCode", "id");

-- CreateIndex
CREATE INDEX "Security_exchangeCountry_id_idx" ON "Security"("exchangeCountry", "id");

-- CreateIndex
CREATE INDEX "Security_gicsCode_id_idx" ON "Security"("gicsCode", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Security_figi_micCode_key" ON "Security"("figi", "micCode");

-- CreateIndex
CREATE UNIQUE INDEX "Logo_symbol_key" ON "Logo"("symbol");

-- CreateIndex
CREATE INDEX "LogoSecurityInfo_figi_idx" ON "LogoSecurityInfo"("figi");

-- CreateIndex
CREATE INDEX "BalanceSheet_reportingPeriodEnd_id_idx" ON "BalanceSheet"("reportingPeriodEnd", "id");

-- CreateIndex
CREATE INDEX "BalanceSheet_fiscalYear_fiscalQuarter_id_idx" ON "BalanceSheet"("fiscalYear", "fiscalQuarter", "id");

-- CreateIndex
CREATE INDEX "BalanceSheet_fiscalQuarter_id_idx" ON "BalanceSheet"("fiscalQuarter", "id");

-- CreateIndex
CREATE INDEX "BalanceSheet_timeframe_reportingPeriodEnd_id_idx" ON "BalanceSheet"("timeframe", "reportingPeriodEnd", "id");

-- CreateIndex
CREATE UNIQUE INDEX "BalanceSheet_cik_reportingPeriodEnd_timeframe_key" ON "BalanceSheet"("cik", "reportingPeriodEnd", "timeframe");

-- CreateIndex
CREATE INDEX "BalanceSheetSymbol_symbol_balanceSheetId_idx" ON "BalanceSheetSymbol"("symbol", "balanceSheetId");

-- CreateIndex
CREATE INDEX "Fundamental_symbol_endPeriod_id_idx" ON "Fundamental"("symbol", "endPeriod", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Fundamental_symbol_year_quarter_key" ON "Fundamental"("symbol", "year", "quarter");

-- CreateIndex
CREATE UNIQUE INDEX "PressRelease_wireDataId_key" ON "PressRelease"("wireDataId");

-- CreateIndex
CREATE INDEX "PressRelease_publishTime_id_idx" ON "PressRelease"("publishTime", "id");

-- CreateIndex
CREATE INDEX "PressReleaseTicker_ticker_pressReleaseId_idx" ON "PressReleaseTicker"("ticker", "pressReleaseId");

-- CreateIndex
CREATE INDEX "PressReleaseSecurity_symbol_idx" ON "PressReleaseSecurity"("symbol");

-- CreateIndex
CREATE INDEX "Rating_ticker_createdAt_id_idx" ON "Rating"("ticker", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Rating_createdAt_id_idx" ON "Rating"("createdAt", "id");

-- CreateIndex
CREATE INDEX "Rating_firm_createdAt_idx" ON "Rating"("firm", "createdAt");

-- CreateIndex
CREATE INDEX "Rating_exchange_createdAt_idx" ON "Rating"("exchange", "createdAt");

-- CreateIndex
CREATE INDEX "Rating_company_createdAt_idx" ON "Rating"("company", "createdAt");

-- CreateIndex
CREATE INDEX "CallSummary_callDate_id_idx" ON "CallSummary"("callDate", "id");

-- CreateIndex
CREATE UNIQUE INDEX "CallSummary_symbol_callDate_key" ON "CallSummary"("symbol", "callDate");

-- CreateIndex
CREATE UNIQUE INDEX "NewsItem_newsId_key" ON "NewsItem"("newsId");

-- CreateIndex
CREATE INDEX "NewsItem_ticker_createdAt_id_idx" ON "NewsItem"("ticker", "createdAt", "id");

-- CreateIndex
CREATE INDEX "NewsItem_shareClassFigi_idx" ON "NewsItem"("shareClassFigi");

-- CreateIndex
CREATE INDEX "NewsSecurity_ticker_idx" ON "NewsSecurity"("ticker");

-- CreateIndex
CREATE INDEX "Trade_symbol_sipTimestamp_sequenceNumber_idx" ON "Trade"("symbol", "sipTimestamp", "sequenceNumber");

-- CreateIndex
CREATE INDEX "Quote_symbol_sipTimestamp_sequenceNumber_idx" ON "Quote"("symbol", "sipTimestamp", "sequenceNumber");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_hash_key" ON "ApiKey"("hash");

-- CreateIndex
CREATE INDEX "ApiKey_userId_idx" ON "ApiKey"("userId");

-- CreateIndex
CREATE INDEX "RefreshTokenFamily_userId_idx" ON "RefreshTokenFamily"("userId");

-- AddForeignKey
ALTER TABLE "LogoSecurityInfo" ADD CONSTRAINT "LogoSecurityInfo_logoId_fkey" FOREIGN KEY ("logoId") REFERENCES "Logo"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BalanceSheetSymbol" ADD CONSTRAINT "BalanceSheetSymbol_balanceSheetId_fkey" FOREIGN KEY ("balanceSheetId") REFERENCES "BalanceSheet"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FundamentalMetrics" ADD CONSTRAINT "FundamentalMetrics_fundamentalId_fkey" FOREIGN KEY ("fundamentalId") REFERENCES "Fundamental"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PressReleaseTicker" ADD CONSTRAINT "PressReleaseTicker_pressReleaseId_fkey" FOREIGN KEY ("pressReleaseId") REFERENCES "PressRelease"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PressReleaseSecurity" ADD CONSTRAINT "PressReleaseSecurity_pressReleaseId_fkey" FOREIGN KEY ("pressReleaseId") REFERENCES "PressRelease"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NewsSecurity" ADD CONSTRAINT "NewsSecurity_newsItemId_fkey" FOREIGN KEY ("newsItemId") REFERENCES "NewsItem"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RefreshTokenFamily" ADD CONSTRAINT "RefreshTokenFamily_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
