-- CreateIndex
CREATE INDEX "Snapshot_day_idx" ON "Snapshot"("day");
