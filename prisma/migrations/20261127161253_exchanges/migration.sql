-- CreateEnum
CREATE TYPE "AssetClass" AS ENUM ('stocks', 'options', 'crypto', 'fx', 'futures');

-- CreateEnum
CREATE TYPE "Locale" AS ENUM ('us', 'global');

-- CreateTable
CREATE TABLE "Exchange" (
    "id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "assetClass" "AssetClass" NOT NULL,
    "locale" "Locale" NOT NULL,
    "name" TEXT NOT NULL,
    "acronym" TEXT,
    "mic" TEXT,
    "operatingMic" TEXT,
    "participantId" TEXT,
    "url" TEXT,

    CONSTRAINT "Exchange_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Exchange_assetClass_locale_id_idx" ON "Exchange"("assetClass", "locale", "id");
