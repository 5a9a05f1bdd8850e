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
