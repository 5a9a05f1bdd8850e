-- DropIndex
DROP INDEX "DayBar_day_extended_idx";

-- CreateIndex
CREATE INDEX "DayBar_day_extended_symbol_idx" ON "DayBar"("day", "extended", "symbol");
