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
