-- CreateTable
CREATE TABLE "SecurityMasterVersion" (
    "id" INTEGER NOT NULL,
    "version" BIGINT NOT NULL,

    CONSTRAINT "SecurityMasterVersion_pkey" PRIMARY KEY ("id")
);

-- The one row, and the triggers that bump it in the writer's own transaction on every statement
-- that writes "Security" (hand-written: Prisma's schema language has no triggers). Concurrent
-- writers queue on the row's lock until the first commits, so no bump is lost.
INSERT INTO "SecurityMasterVersion" ("id", "version") VALUES (1, 0);

-- search_path FROM CURRENT: the function names the table in the schema it was migrated into,
-- whatever search_path a writer has (a tool, a test copying rows across schemas).
-- The body is an E'' string with \073 for each semicolon: npm run migrate:create replays this
-- file through @prisma/adapter-pg, which splits scripts at every semicolon, quoted or not.
CREATE FUNCTION "bump_security_master_version"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
    E'BEGIN UPDATE "SecurityMasterVersion" SET "version" = "version" + 1 WHERE "id" = 1\073 RETURN NULL\073 END';

CREATE TRIGGER "Security_version" AFTER INSERT OR UPDATE OR DELETE ON "Security"
    FOR EACH STATEMENT EXECUTE FUNCTION "bump_security_master_version"();

CREATE TRIGGER "Security_version_truncate" AFTER TRUNCATE ON "Security"
    FOR EACH STATEMENT EXECUTE FUNCTION "bump_security_master_version"();
