-- AlterTable
ALTER TABLE "FundamentalMetrics" ALTER COLUMN "peRatio" DROP NOT NULL,
ALTER COLUMN "priceToBook" DROP NOT NULL,
ALTER COLUMN "debtToEquity" DROP NOT NULL,
ALTER COLUMN "returnOnAssets" DROP NOT NULL,
ALTER COLUMN "returnOnEquity" DROP NOT NULL,
ALTER COLUMN "revenuePerEmployee" DROP NOT NULL,
ALTER COLUMN "roic" DROP NOT NULL,
ALTER COLUMN "fcfYield" DROP NOT NULL,
ALTER COLUMN "dso" DROP NOT NULL,
ALTER COLUMN "dio" DROP NOT NULL,
ALTER COLUMN "dpo" DROP NOT NULL,
ALTER COLUMN "riskFactorCount" DROP NOT NULL,
ALTER COLUMN "riskTopThemes" DROP NOT NULL,
ALTER COLUMN "riskAverageSentimentScore" DROP NOT NULL,
ALTER COLUMN "riskMostNegativeHeading" DROP NOT NULL,
ALTER COLUMN "riskMostNegativeSentiment" DROP NOT NULL,
ALTER COLUMN "mdnaForwardLookingTermCount" DROP NOT NULL,
ALTER COLUMN "mdnaForwardToHistoricalRatio" DROP NOT NULL,
ALTER COLUMN "mdnaToneScore" DROP NOT NULL,
ALTER COLUMN "mdnaKeyTopics" DROP NOT NULL,
ALTER COLUMN "litigationCount" DROP NOT NULL,
ALTER COLUMN "litigationRecentHeadings" DROP NOT NULL;

-- CreateTable
CREATE TABLE "SyncState" (
    "source" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "highWater" TEXT NOT NULL,
    "rows" INTEGER NOT NULL DEFAULT 0,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SyncState_pkey" PRIMARY KEY ("source","resource")
);
