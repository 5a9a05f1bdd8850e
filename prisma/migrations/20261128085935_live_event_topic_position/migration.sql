-- CreateIndex
CREATE INDEX "LiveEvent_topic_id_idx" ON "LiveEvent"("topic", "id");
