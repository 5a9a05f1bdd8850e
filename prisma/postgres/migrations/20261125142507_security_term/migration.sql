-- CreateTable
CREATE TABLE "SecurityTerm" (
    "term" TEXT NOT NULL,
    "field" INTEGER NOT NULL,
    "securityId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "SecurityTerm_pkey" PRIMARY KEY ("term","field","securityId","position")
);

-- CreateIndex
CREATE INDEX "SecurityTerm_securityId_field_position_idx" ON "SecurityTerm"("securityId", "field", "position");

-- AddForeignKey
ALTER TABLE "SecurityTerm" ADD CONSTRAINT "SecurityTerm_securityId_fkey" FOREIGN KEY ("securityId") REFERENCES "Security"("id") ON DELETE CASCADE ON UPDATE CASCADE;
