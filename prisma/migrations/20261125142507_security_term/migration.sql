-- CreateTable
CREATE TABLE "SecurityTerm" (
    "term" TEXT NOT NULL,
    "field" INTEGER NOT NULL,
    "securityId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    PRIMARY KEY ("term", "field", "securityId", "position"),
    CONSTRAINT "SecurityTerm_securityId_fkey" FOREIGN KEY ("securityId") REFERENCES "Security" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "SecurityTerm_securityId_field_position_idx" ON "SecurityTerm"("securityId", "field", "position");
