-- The search engine moves into each process (src/search/): "SecurityTerm" (the words of every name,
-- for the search in SQL) goes; the engine reads the rows written since the version it holds, by
-- "rev", and the screener's metrics kept beside the master in "SecurityMetrics".
-- DropForeignKey
ALTER TABLE "SecurityTerm" DROP CONSTRAINT "SecurityTerm_securityId_fkey";

-- AlterTable
ALTER TABLE "Security" ADD COLUMN     "rev" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "SecurityMasterVersion" ADD COLUMN     "bumpedBy" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "epoch" BIGINT NOT NULL DEFAULT 0;

-- DropTable
DROP TABLE "SecurityTerm";

-- CreateTable
CREATE TABLE "SecurityMetrics" (
    "symbol" TEXT NOT NULL,
    "peRatio" DOUBLE PRECISION,
    "priceToBook" DOUBLE PRECISION,
    "debtToEquity" DOUBLE PRECISION,
    "returnOnEquity" DOUBLE PRECISION,
    "returnOnAssets" DOUBLE PRECISION,
    "roic" DOUBLE PRECISION,
    "fcfYield" DOUBLE PRECISION,
    "rev" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "SecurityMetrics_pkey" PRIMARY KEY ("symbol")
);

-- CreateIndex
CREATE INDEX "SecurityMetrics_rev_idx" ON "SecurityMetrics"("rev");

-- CreateIndex
CREATE INDEX "Security_rev_idx" ON "Security"("rev");

-- Versions in commit order (hand-written: Prisma's schema language has no triggers). A writing
-- transaction bumps SecurityMasterVersion once, at its first row of "Security" or "SecurityMetrics",
-- stamps every row it writes with that version ("rev"; 0 while the version row is missing, as in a
-- copy of tables), and holds the version row's lock to its
-- commit: so a reader that sees version v sees every row stamped v or lower, and none above. A delete
-- or truncate moves "epoch" too (readers then read the master whole). Bodies are E'' strings with
-- \073 for each semicolon: npm run migrate:create replays this file through @prisma/adapter-pg, which
-- splits scripts at every semicolon, quoted or not.
DROP TRIGGER "Security_version" ON "Security";
DROP TRIGGER "Security_version_truncate" ON "Security";
DROP FUNCTION "bump_security_master_version"();

CREATE FUNCTION "security_master_rev"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
    E'DECLARE v BIGINT\073 BEGIN UPDATE "SecurityMasterVersion" SET "version" = "version" + 1, "bumpedBy" = txid_current() WHERE "id" = 1 AND "bumpedBy" <> txid_current() RETURNING "version" INTO v\073 IF v IS NULL THEN SELECT "version" INTO v FROM "SecurityMasterVersion" WHERE "id" = 1\073 END IF\073 NEW."rev" := COALESCE(v, 0)\073 RETURN NEW\073 END';
CREATE FUNCTION "security_master_gone"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
    E'BEGIN IF EXISTS (SELECT 1 FROM gone) THEN UPDATE "SecurityMasterVersion" SET "version" = "version" + 1, "epoch" = "epoch" + 1, "bumpedBy" = txid_current() WHERE "id" = 1\073 END IF\073 RETURN NULL\073 END';
CREATE FUNCTION "security_master_truncated"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
    E'BEGIN UPDATE "SecurityMasterVersion" SET "version" = "version" + 1, "epoch" = "epoch" + 1, "bumpedBy" = txid_current() WHERE "id" = 1\073 RETURN NULL\073 END';

CREATE TRIGGER "Security_rev" BEFORE INSERT OR UPDATE ON "Security"
    FOR EACH ROW EXECUTE FUNCTION "security_master_rev"();
CREATE TRIGGER "Security_gone" AFTER DELETE ON "Security" REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION "security_master_gone"();
CREATE TRIGGER "Security_truncated" AFTER TRUNCATE ON "Security"
    FOR EACH STATEMENT EXECUTE FUNCTION "security_master_truncated"();

CREATE TRIGGER "SecurityMetrics_rev" BEFORE INSERT OR UPDATE ON "SecurityMetrics"
    FOR EACH ROW EXECUTE FUNCTION "security_master_rev"();
CREATE TRIGGER "SecurityMetrics_gone" AFTER DELETE ON "SecurityMetrics" REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION "security_master_gone"();
CREATE TRIGGER "SecurityMetrics_truncated" AFTER TRUNCATE ON "SecurityMetrics"
    FOR EACH STATEMENT EXECUTE FUNCTION "security_master_truncated"();

-- The screener's metrics of a symbol are those of its latest fundamentals record (by period end, the
-- annual record on a tie; none when that record has no enhanced metrics): the one statement of this
-- rule, run for the symbols a write of "Fundamental" or "FundamentalMetrics" touches, in the writer's
-- transaction. A row is rewritten only when a value changes, and never deleted by it (no metrics: nulls).
CREATE FUNCTION "refresh_security_metrics"(symbols TEXT[]) RETURNS void LANGUAGE plpgsql SET search_path FROM CURRENT AS
    E'BEGIN INSERT INTO "SecurityMetrics" ("symbol", "peRatio", "priceToBook", "debtToEquity", "returnOnEquity", "returnOnAssets", "roic", "fcfYield") SELECT s."symbol", fm."peRatio", fm."priceToBook", fm."debtToEquity", fm."returnOnEquity", fm."returnOnAssets", fm."roic", fm."fcfYield" FROM unnest(symbols) AS s("symbol") LEFT JOIN LATERAL (SELECT f."id" FROM "Fundamental" f WHERE f."symbol" = s."symbol" ORDER BY f."endPeriod" DESC, CASE WHEN f."quarter" = ''FY'' THEN 0 ELSE 1 END, f."id" DESC LIMIT 1) l ON TRUE LEFT JOIN "FundamentalMetrics" fm ON fm."fundamentalId" = l."id" ON CONFLICT ("symbol") DO UPDATE SET "peRatio" = EXCLUDED."peRatio", "priceToBook" = EXCLUDED."priceToBook", "debtToEquity" = EXCLUDED."debtToEquity", "returnOnEquity" = EXCLUDED."returnOnEquity", "returnOnAssets" = EXCLUDED."returnOnAssets", "roic" = EXCLUDED."roic", "fcfYield" = EXCLUDED."fcfYield" WHERE ("SecurityMetrics"."peRatio", "SecurityMetrics"."priceToBook", "SecurityMetrics"."debtToEquity", "SecurityMetrics"."returnOnEquity", "SecurityMetrics"."returnOnAssets", "SecurityMetrics"."roic", "SecurityMetrics"."fcfYield") IS DISTINCT FROM (EXCLUDED."peRatio", EXCLUDED."priceToBook", EXCLUDED."debtToEquity", EXCLUDED."returnOnEquity", EXCLUDED."returnOnAssets", EXCLUDED."roic", EXCLUDED."fcfYield")\073 END';
CREATE FUNCTION "security_metrics_of_records"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
    E'BEGIN PERFORM "refresh_security_metrics"(ARRAY(SELECT DISTINCT "symbol" FROM changed))\073 RETURN NULL\073 END';
CREATE FUNCTION "security_metrics_of_updates"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
    E'BEGIN PERFORM "refresh_security_metrics"(ARRAY(SELECT "symbol" FROM changed UNION SELECT "symbol" FROM gone))\073 RETURN NULL\073 END';
CREATE FUNCTION "security_metrics_of_metrics"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
    E'BEGIN PERFORM "refresh_security_metrics"(ARRAY(SELECT DISTINCT f."symbol" FROM changed c JOIN "Fundamental" f ON f."id" = c."fundamentalId"))\073 RETURN NULL\073 END';

CREATE TRIGGER "Fundamental_metrics_insert" AFTER INSERT ON "Fundamental" REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION "security_metrics_of_records"();
CREATE TRIGGER "Fundamental_metrics_delete" AFTER DELETE ON "Fundamental" REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION "security_metrics_of_records"();
CREATE TRIGGER "Fundamental_metrics_update" AFTER UPDATE ON "Fundamental" REFERENCING OLD TABLE AS gone NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION "security_metrics_of_updates"();
CREATE TRIGGER "FundamentalMetrics_insert" AFTER INSERT ON "FundamentalMetrics" REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION "security_metrics_of_metrics"();
CREATE TRIGGER "FundamentalMetrics_update" AFTER UPDATE ON "FundamentalMetrics" REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION "security_metrics_of_metrics"();
CREATE TRIGGER "FundamentalMetrics_delete" AFTER DELETE ON "FundamentalMetrics" REFERENCING OLD TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION "security_metrics_of_metrics"();

-- the metrics of what is stored already
SELECT "refresh_security_metrics"(ARRAY(SELECT DISTINCT "symbol" FROM "Fundamental"));
