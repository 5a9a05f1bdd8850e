-- AlterTable
ALTER TABLE "MinuteBar" ADD COLUMN     "closeAt" BIGINT,
ADD COLUMN     "closeSequence" BIGINT,
ADD COLUMN     "openAt" BIGINT,
ADD COLUMN     "openSequence" BIGINT;

-- Bars stored before these columns keep them null: the writer recomputes such a minute from its
-- trades the next time a trade lands in it (services/bar-write.ts), and `cli bars rebuild` fills
-- them for any range at once.
