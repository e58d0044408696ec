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
