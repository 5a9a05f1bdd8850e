-- CreateTable
CREATE TABLE "LiveEvent" (
    "id" BIGINT NOT NULL PRIMARY KEY,
    "topic" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "at" BIGINT NOT NULL
);

-- CreateIndex
CREATE INDEX "LiveEvent_at_idx" ON "LiveEvent"("at");
