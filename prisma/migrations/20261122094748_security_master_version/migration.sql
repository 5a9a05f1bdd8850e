-- CreateTable
CREATE TABLE "SecurityMasterVersion" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "version" BIGINT NOT NULL
);

-- The one row, and the triggers that bump it in the writer's own transaction on every change to
-- "Security" (hand-written: Prisma's schema language has no triggers). One bump per row, as
-- SQLite has no statement-level triggers.
INSERT INTO "SecurityMasterVersion" ("id", "version") VALUES (1, 0);

CREATE TRIGGER "Security_version_insert" AFTER INSERT ON "Security" FOR EACH ROW
BEGIN
    UPDATE "SecurityMasterVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;

CREATE TRIGGER "Security_version_update" AFTER UPDATE ON "Security" FOR EACH ROW
BEGIN
    UPDATE "SecurityMasterVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;

CREATE TRIGGER "Security_version_delete" AFTER DELETE ON "Security" FOR EACH ROW
BEGIN
    UPDATE "SecurityMasterVersion" SET "version" = "version" + 1 WHERE "id" = 1;
END;
