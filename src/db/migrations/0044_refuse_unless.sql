-- The functions of src/db/functions whose text changed (npm run db:functions): records_refuse_unless.
-- A refusal raised by the statement that meets it (issue 23): a write whose COMMIT is sent
-- with its statement (db/pipelined.ts COMMIT_WITH) must fail, not return a refusal for the
-- caller to act on, or the COMMIT behind it would keep what it wrote. True when `p_ok`;
-- otherwise raises SQLSTATE `p_state` (class RS: records/refusals.ts reads them) with
-- `p_detail` (e.g. the row's size in bytes), and the transaction is left failed.
CREATE OR REPLACE FUNCTION records_refuse_unless(p_ok boolean, p_state text, p_detail text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  IF p_ok THEN
    RETURN true;
  END IF;
  RAISE EXCEPTION 'refused (%): %', p_state, p_detail USING ERRCODE = p_state, DETAIL = p_detail;
END $$;
