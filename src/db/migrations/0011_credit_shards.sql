-- Striped credits (docs/credits.md): an organization's balance is the sum of its 16
-- credit_shards rows. A cell write debits the shard of its database connection
-- (pg_backend_pid() % 16), so one organization's writers no longer queue behind one row
-- lock held until each commit is on disk.
CREATE TABLE "credit_shards" (
	"organization_sid" text NOT NULL,
	"shard" integer NOT NULL,
	"credits" numeric(14, 2) DEFAULT '0' NOT NULL,
	CONSTRAINT "credit_shards_organization_sid_shard_pk" PRIMARY KEY("organization_sid","shard"),
	CONSTRAINT "credit_shards_credits_check" CHECK ("credit_shards"."credits" >= 0)
);
--> statement-breakpoint
ALTER TABLE "credit_shards" ADD CONSTRAINT "credit_shards_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Every organization's balance moves into its shard 0; the first debit on another shard spreads it.
INSERT INTO "credit_shards" ("organization_sid", "shard", "credits")
SELECT o.sid, s, CASE WHEN s = 0 THEN o.credits ELSE 0 END FROM "organizations" o, generate_series(0, 15) s;
--> statement-breakpoint
ALTER TABLE "organizations" DROP COLUMN "credits";
--> statement-breakpoint
-- Puts p_total into the organization's shards, whose locks the caller holds: each gets
-- the same whole cents, p_keep the rest, so every connection's shard can pay for a while.
CREATE OR REPLACE FUNCTION records_credits_spread(p_org text, p_total numeric, p_keep integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  each numeric := trunc(p_total / 16, 2);
BEGIN
  UPDATE credit_shards SET credits = CASE WHEN shard = p_keep THEN p_total - 15 * each ELSE each END
   WHERE organization_sid = p_org;
END;
$$;
--> statement-breakpoint
-- Debits p_amount (> 0) from the organization and writes its ledger entry, in the caller's
-- transaction. Returns the ledger's balance_after, or NULL (nothing written) when the
-- organization's credits do not cover the amount.
--   1. The connection's own shard pays when it can: one guarded UPDATE. It runs in a
--      subtransaction that is rolled back when it cannot pay, so a failed try never keeps
--      the shard's lock (a guarded UPDATE that waited for another writer keeps the row
--      locked even when the row no longer qualifies).
--   2. Otherwise every shard is locked in shard order and the decision is taken on their
--      committed total: exact at the boundary. The rest is spread over the shards again.
-- A transaction that debits twice keeps to one shard (its connection's), so a single-debit
-- transaction never holds a shard when it locks them all: those never deadlock.
CREATE OR REPLACE FUNCTION records_debit(p_org text, p_amount numeric, p_sid text, p_reason text, p_cell text, p_row text, p_user text)
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  k integer := pg_backend_pid() % 16;
  mine numeric;
  total numeric;
BEGIN
  BEGIN
    UPDATE credit_shards SET credits = credits - p_amount
     WHERE organization_sid = p_org AND shard = k AND credits >= p_amount
    RETURNING credits INTO mine;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'shard cannot pay' USING ERRCODE = 'RS001';
    END IF;
  EXCEPTION WHEN SQLSTATE 'RS001' THEN
    mine := NULL;
  END;
  IF mine IS NOT NULL THEN
    -- The balance after: this shard's, plus the others as last committed.
    SELECT mine + coalesce(sum(s.credits), 0) INTO total FROM credit_shards s WHERE s.organization_sid = p_org AND s.shard <> k;
  ELSE
    PERFORM 1 FROM credit_shards s WHERE s.organization_sid = p_org ORDER BY s.shard FOR UPDATE;
    SELECT sum(s.credits) INTO total FROM credit_shards s WHERE s.organization_sid = p_org;
    IF total IS NULL OR total < p_amount THEN
      RETURN NULL;
    END IF;
    total := total - p_amount;
    PERFORM records_credits_spread(p_org, total, k);
  END IF;
  INSERT INTO credit_ledger (sid, organization_sid, amount, balance_after, reason, cell_sid, row_sid, user_sid)
  VALUES (p_sid, p_org, -p_amount, total, p_reason, p_cell, p_row, p_user);
  RETURN total::numeric(14, 2);
END;
$$;
--> statement-breakpoint
-- Sets (p_mode 'set') or adds to ('add') the organization's credits with every shard
-- locked in shard order, and records the change in the ledger. Returns the balance and
-- the change; no row when there is no such organization. 23514 below zero, 22003 past
-- 999999999999.99 (as the single column's check and type answered before).
CREATE OR REPLACE FUNCTION records_credits_adjust(p_org text, p_mode text, p_amount numeric, p_sid text, p_reason text, p_user text)
RETURNS TABLE (balance numeric, delta numeric) LANGUAGE plpgsql AS $$
DECLARE
  before numeric;
  after numeric;
BEGIN
  PERFORM 1 FROM credit_shards s WHERE s.organization_sid = p_org ORDER BY s.shard FOR UPDATE;
  SELECT sum(s.credits) INTO before FROM credit_shards s WHERE s.organization_sid = p_org;
  IF before IS NULL THEN
    RETURN;
  END IF;
  after := CASE WHEN p_mode = 'set' THEN p_amount ELSE before + p_amount END;
  IF after < 0 THEN
    RAISE EXCEPTION 'credits cannot go below zero' USING ERRCODE = '23514';
  END IF;
  IF after > 999999999999.99 THEN
    RAISE EXCEPTION 'numeric field overflow' USING ERRCODE = '22003';
  END IF;
  PERFORM records_credits_spread(p_org, after, 0);
  INSERT INTO credit_ledger (sid, organization_sid, amount, balance_after, reason, user_sid)
  VALUES (p_sid, p_org, after - before, after, p_reason, p_user);
  RETURN QUERY SELECT after::numeric(14, 2), (after - before)::numeric(14, 2);
END;
$$;
