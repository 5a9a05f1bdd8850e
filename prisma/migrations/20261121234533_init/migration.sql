-- CreateTable
CREATE TABLE "Security" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "lastUpdatedUtc" DATETIME,
    "locale" TEXT,
    "market" TEXT,
    "primaryExchange" TEXT,
    "ticker" TEXT,
    "tickerRoot" TEXT,
    "type" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Logo" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "symbol" TEXT NOT NULL,
    "companyName" TEXT NOT NULL,
    "pngUrl" TEXT NOT NULL,
    "pngHeight" INTEGER NOT NULL,
    "pngWidth" INTEGER NOT NULL,
    "pngSizeKb" REAL NOT NULL,
    "svgUrl" TEXT NOT NULL,
    "svgSizeKb" REAL NOT NULL,
    "thumbnailUrl" TEXT NOT NULL,
    "thumbnailSizeKb" REAL NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
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

    PRIMARY KEY ("logoId", "position"),
    CONSTRAINT "LogoSecurityInfo_logoId_fkey" FOREIGN KEY ("logoId") REFERENCES "Logo" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "BalanceSheet" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "cik" TEXT NOT NULL,
    "fiscalYear" INTEGER NOT NULL,
    "fiscalQuarter" INTEGER NOT NULL,
    "reportingPeriodEnd" TEXT NOT NULL,
    "timeframe" TEXT NOT NULL,
    "accumulatedRetainedEarnings" REAL NOT NULL,
    "acquiredGoodwill" REAL NOT NULL,
    "advanceCustomerPayments" REAL NOT NULL,
    "cashAndShortTermEquivalents" REAL NOT NULL,
    "currentAccruedLiabilities" REAL NOT NULL,
    "customerReceivables" REAL NOT NULL,
    "longTermDebtObligations" REAL NOT NULL,
    "longTermMiscellaneousLiabilities" REAL NOT NULL,
    "miscellaneousAssets" REAL NOT NULL,
    "miscellaneousCurrentAssets" REAL NOT NULL,
    "netFixedAssets" REAL NOT NULL,
    "netIntangibleAssets" REAL NOT NULL,
    "ordinaryShareCapital" REAL NOT NULL,
    "otherComprehensiveIncomeAccumulated" REAL NOT NULL,
    "otherStockholderEquity" REAL NOT NULL,
    "parentCompanyEquity" REAL NOT NULL,
    "payableToSuppliers" REAL NOT NULL,
    "shortTermDebtObligations" REAL NOT NULL,
    "sumOfCurrentAssets" REAL NOT NULL,
    "sumOfCurrentLiabilities" REAL NOT NULL,
    "totalAssets" REAL NOT NULL,
    "totalEquity" REAL NOT NULL,
    "totalLiabilities" REAL NOT NULL,
    "totalLiabilitiesPlusEquity" REAL NOT NULL,
    "capitalPaidInExcess" REAL,
    "marketableSecuritiesShortTerm" REAL,
    "minorityShareholderInterest" REAL,
    "stockInventory" REAL,
    "treasuryStock" REAL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "BalanceSheetSymbol" (
    "balanceSheetId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "symbol" TEXT NOT NULL,

    PRIMARY KEY ("balanceSheetId", "position"),
    CONSTRAINT "BalanceSheetSymbol_balanceSheetId_fkey" FOREIGN KEY ("balanceSheetId") REFERENCES "BalanceSheet" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Fundamental" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "symbol" TEXT NOT NULL,
    "cik" TEXT NOT NULL,
    "endPeriod" TEXT NOT NULL,
    "quarter" TEXT NOT NULL,
    "year" INTEGER NOT NULL,
    "revenue" REAL NOT NULL,
    "costOfRevenue" REAL NOT NULL,
    "grossProfit" REAL NOT NULL,
    "sellingGeneralAdministrative" REAL NOT NULL,
    "researchDevelopment" REAL NOT NULL,
    "depreciationDepletionAmortizationExpense" REAL NOT NULL,
    "otherOperatingExpenses" REAL NOT NULL,
    "totalOperatingExpenses" REAL NOT NULL,
    "operatingIncome" REAL NOT NULL,
    "interestExpense" REAL NOT NULL,
    "interestInvestmentIncome" REAL NOT NULL,
    "otherExpenseIncome" REAL NOT NULL,
    "totalOtherIncomeExpense" REAL NOT NULL,
    "incomeBeforeIncomeTaxes" REAL NOT NULL,
    "incomeTaxes" REAL NOT NULL,
    "discontinuedOperations" REAL NOT NULL,
    "equityInAffiliates" REAL NOT NULL,
    "extraordinaryItems" REAL NOT NULL,
    "consolidatedNetIncomeLoss" REAL NOT NULL,
    "noncontrollingInterestIncome" REAL NOT NULL,
    "preferredStockDividendsDeclared" REAL NOT NULL,
    "netIncomeLossAttributableCommonShareholders" REAL NOT NULL,
    "basicEarningsPerShare" REAL NOT NULL,
    "dilutedEarningsPerShare" REAL NOT NULL,
    "basicSharesOutstanding" REAL NOT NULL,
    "dilutedSharesOutstanding" REAL NOT NULL,
    "ebitda" REAL NOT NULL,
    "cashEquivalents" REAL NOT NULL,
    "shortTermInvestments" REAL NOT NULL,
    "inventories" REAL NOT NULL,
    "prepaidExpensesOtherCurrentAssets" REAL NOT NULL,
    "totalCurrentAssets" REAL NOT NULL,
    "propertyPlantEquipmentNet" REAL NOT NULL,
    "goodwill" REAL NOT NULL,
    "intangibleAssetsNet" REAL NOT NULL,
    "otherAssets" REAL NOT NULL,
    "totalAssets" REAL NOT NULL,
    "accountsPayable" REAL NOT NULL,
    "deferredRevenueCurrent" REAL NOT NULL,
    "deferredLiabilitiesCurrent" REAL NOT NULL,
    "debtCurrent" REAL NOT NULL,
    "accruedOtherCurrentLiabilities" REAL NOT NULL,
    "totalCurrentLiabilities" REAL NOT NULL,
    "longTermDebtCapitalLeaseObligations" REAL NOT NULL,
    "otherNoncurrentLiabilities" REAL NOT NULL,
    "totalLiabilities" REAL NOT NULL,
    "commitmentsContingencies" REAL,
    "preferredStock" REAL NOT NULL,
    "commonStock" REAL NOT NULL,
    "additionalPaidInCapital" REAL NOT NULL,
    "treasuryStock" REAL NOT NULL,
    "accumulatedOtherComprehensiveIncome" REAL NOT NULL,
    "retainedEarningsDeficit" REAL NOT NULL,
    "otherEquity" REAL NOT NULL,
    "totalEquityAttributableParent" REAL NOT NULL,
    "noncontrollingInterest" REAL NOT NULL,
    "totalEquity" REAL NOT NULL,
    "totalLiabilitiesEquity" REAL NOT NULL,
    "netIncomeCashFlow" REAL NOT NULL,
    "incomeLossDiscontinuedOperations" REAL NOT NULL,
    "depreciationDepletionAmortization" REAL NOT NULL,
    "otherOperatingActivities" REAL NOT NULL,
    "changeOtherOperatingAssetsLiabilitiesNet" REAL NOT NULL,
    "cashOperatingActivitiesContinuingOperations" REAL NOT NULL,
    "netCashOperatingActivitiesDiscontinuedOperations" REAL NOT NULL,
    "netCashOperatingActivities" REAL NOT NULL,
    "purchasePropertyPlantEquipment" REAL NOT NULL,
    "salePropertyPlantEquipment" REAL NOT NULL,
    "acquisitionsNet" REAL NOT NULL,
    "otherInvestingActivities" REAL NOT NULL,
    "netCashInvestingActivitiesContinuingOperations" REAL NOT NULL,
    "netCashInvestingActivitiesDiscontinuedOperations" REAL NOT NULL,
    "netCashInvestingActivities" REAL NOT NULL,
    "shortTermDebtIssuancesRepayments" REAL NOT NULL,
    "cashDividends" REAL NOT NULL,
    "equityRepurchases" REAL NOT NULL,
    "otherFinancingActivities" REAL NOT NULL,
    "netCashFinancingActivitiesContinuingOperations" REAL NOT NULL,
    "netCashFinancingActivitiesDiscontinuedOperations" REAL NOT NULL,
    "netCashFinancingActivities" REAL NOT NULL,
    "effectCurrencyExchangeRate" REAL NOT NULL,
    "otherCashAdjustments" REAL NOT NULL,
    "changeCashEquivalents" REAL NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "FundamentalMetrics" (
    "fundamentalId" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "peRatio" REAL NOT NULL,
    "priceToBook" REAL NOT NULL,
    "debtToEquity" REAL NOT NULL,
    "returnOnAssets" REAL NOT NULL,
    "returnOnEquity" REAL NOT NULL,
    "revenuePerEmployee" REAL NOT NULL,
    "roic" REAL NOT NULL,
    "fcfYield" REAL NOT NULL,
    "dso" REAL NOT NULL,
    "dio" REAL NOT NULL,
    "dpo" REAL NOT NULL,
    "riskFactorCount" INTEGER NOT NULL,
    "riskTopThemes" JSONB NOT NULL,
    "riskAverageSentimentScore" REAL NOT NULL,
    "riskMostNegativeHeading" TEXT NOT NULL,
    "riskMostNegativeSentiment" REAL NOT NULL,
    "mdnaForwardLookingTermCount" INTEGER NOT NULL,
    "mdnaForwardToHistoricalRatio" REAL NOT NULL,
    "mdnaToneScore" REAL NOT NULL,
    "mdnaKeyTopics" JSONB NOT NULL,
    "litigationCount" INTEGER NOT NULL,
    "litigationRecentHeadings" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "FundamentalMetrics_fundamentalId_fkey" FOREIGN KEY ("fundamentalId") REFERENCES "Fundamental" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PressRelease" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "wireDataId" TEXT NOT NULL,
    "vendor" TEXT NOT NULL,
    "releaseId" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "transmissionId" TEXT NOT NULL,
    "headline" TEXT NOT NULL,
    "subHeadline" TEXT NOT NULL,
    "dateline" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "publishTime" DATETIME NOT NULL,
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PressReleaseTicker" (
    "pressReleaseId" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "ticker" TEXT NOT NULL,

    PRIMARY KEY ("pressReleaseId", "position"),
    CONSTRAINT "PressReleaseTicker_pressReleaseId_fkey" FOREIGN KEY ("pressReleaseId") REFERENCES "PressRelease" ("id") ON DELETE CASCADE ON UPDATE CASCADE
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

    PRIMARY KEY ("pressReleaseId", "position"),
    CONSTRAINT "PressReleaseSecurity_pressReleaseId_fkey" FOREIGN KEY ("pressReleaseId") REFERENCES "PressRelease" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Rating" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "firm" TEXT NOT NULL,
    "ticker" TEXT NOT NULL,
    "exchange" TEXT NOT NULL,
    "company" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "rating" TEXT NOT NULL,
    "priceTarget" TEXT NOT NULL,
    "story" TEXT NOT NULL,
    "isRating" BOOLEAN NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "CallSummary" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "symbol" TEXT NOT NULL,
    "companyName" TEXT NOT NULL,
    "callDate" DATETIME NOT NULL,
    "fiscalYear" INTEGER NOT NULL,
    "fiscalPeriod" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "keyPoints" JSONB NOT NULL,
    "guidance" TEXT,
    "sentimentScore" REAL NOT NULL,
    "participants" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "NewsItem" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
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
    "type" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
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

    PRIMARY KEY ("newsItemId", "position"),
    CONSTRAINT "NewsSecurity_newsItemId_fkey" FOREIGN KEY ("newsItemId") REFERENCES "NewsItem" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Trade" (
    "symbol" TEXT NOT NULL,
    "sequenceNumber" BIGINT NOT NULL,
    "sipTimestamp" BIGINT NOT NULL,
    "tradeId" TEXT NOT NULL,
    "price" REAL NOT NULL,
    "size" REAL NOT NULL,
    "exchange" INTEGER NOT NULL,
    "tape" INTEGER NOT NULL,
    "conditions" JSONB NOT NULL,

    PRIMARY KEY ("symbol", "sequenceNumber")
);

-- CreateTable
CREATE TABLE "Quote" (
    "symbol" TEXT NOT NULL,
    "sequenceNumber" BIGINT NOT NULL,
    "sipTimestamp" BIGINT NOT NULL,
    "askExchange" INTEGER NOT NULL,
    "askPrice" REAL NOT NULL,
    "askSize" REAL NOT NULL,
    "bidExchange" INTEGER NOT NULL,
    "bidPrice" REAL NOT NULL,
    "bidSize" REAL NOT NULL,
    "tape" INTEGER NOT NULL,
    "conditions" JSONB NOT NULL,

    PRIMARY KEY ("symbol", "sequenceNumber")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "tier" TEXT NOT NULL DEFAULT 'free',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    "revokedAt" DATETIME,
    CONSTRAINT "ApiKey_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RefreshTokenFamily" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "currentJti" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "RefreshTokenFamily_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AppMeta" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL
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
