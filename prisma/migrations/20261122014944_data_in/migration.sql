-- CreateTable
CREATE TABLE "SyncState" (
    "source" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "highWater" TEXT NOT NULL,
    "rows" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("source", "resource")
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_FundamentalMetrics" (
    "fundamentalId" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "peRatio" REAL,
    "priceToBook" REAL,
    "debtToEquity" REAL,
    "returnOnAssets" REAL,
    "returnOnEquity" REAL,
    "revenuePerEmployee" REAL,
    "roic" REAL,
    "fcfYield" REAL,
    "dso" REAL,
    "dio" REAL,
    "dpo" REAL,
    "riskFactorCount" INTEGER,
    "riskTopThemes" JSONB,
    "riskAverageSentimentScore" REAL,
    "riskMostNegativeHeading" TEXT,
    "riskMostNegativeSentiment" REAL,
    "mdnaForwardLookingTermCount" INTEGER,
    "mdnaForwardToHistoricalRatio" REAL,
    "mdnaToneScore" REAL,
    "mdnaKeyTopics" JSONB,
    "litigationCount" INTEGER,
    "litigationRecentHeadings" JSONB,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "FundamentalMetrics_fundamentalId_fkey" FOREIGN KEY ("fundamentalId") REFERENCES "Fundamental" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_FundamentalMetrics" ("createdAt", "debtToEquity", "dio", "dpo", "dso", "fcfYield", "fundamentalId", "litigationCount", "litigationRecentHeadings", "mdnaForwardLookingTermCount", "mdnaForwardToHistoricalRatio", "mdnaKeyTopics", "mdnaToneScore", "peRatio", "priceToBook", "returnOnAssets", "returnOnEquity", "revenuePerEmployee", "riskAverageSentimentScore", "riskFactorCount", "riskMostNegativeHeading", "riskMostNegativeSentiment", "riskTopThemes", "roic", "updatedAt") SELECT "createdAt", "debtToEquity", "dio", "dpo", "dso", "fcfYield", "fundamentalId", "litigationCount", "litigationRecentHeadings", "mdnaForwardLookingTermCount", "mdnaForwardToHistoricalRatio", "mdnaKeyTopics", "mdnaToneScore", "peRatio", "priceToBook", "returnOnAssets", "returnOnEquity", "revenuePerEmployee", "riskAverageSentimentScore", "riskFactorCount", "riskMostNegativeHeading", "riskMostNegativeSentiment", "riskTopThemes", "roic", "updatedAt" FROM "FundamentalMetrics";
DROP TABLE "FundamentalMetrics";
ALTER TABLE "new_FundamentalMetrics" RENAME TO "FundamentalMetrics";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
