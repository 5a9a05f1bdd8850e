-- CreateIndex
CREATE INDEX "Security_figi_id_idx" ON "Security"("figi", "id");
