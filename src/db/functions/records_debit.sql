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
