-- Appends the next version of a row, in the caller's transaction: locks the row (so
-- versions of one row are strictly sequential across any number of connections),
-- hashes {row, version, previousHash, data, updated_by, date_created} and moves the
-- row's head. The unique (row_sid, version) index is the last guard.
CREATE OR REPLACE FUNCTION records_append_version(p_sid text, p_row text, p_user text, p_message text)
RETURNS TABLE (version integer, hash text)
LANGUAGE plpgsql AS $$
DECLARE
  r record;
  d jsonb;
  ts timestamptz := clock_timestamp();
  ts_text text;
  v integer;
  h text;
BEGIN
  SELECT rr.organization_sid, rr.version, rr.last_hash INTO r FROM record_rows rr WHERE rr.sid = p_row FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'row % does not exist', p_row USING ERRCODE = 'P0002';
  END IF;
  d := records_row_data(p_row);
  v := r.version + 1;
  ts := date_trunc('microseconds', ts);
  ts_text := to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
  h := encode(sha256(convert_to(records_version_text(p_row, v, r.last_hash, d, p_user, ts_text), 'UTF8')), 'hex');
  INSERT INTO versions (sid, organization_sid, row_sid, version, hash, previous_hash, data, activity_message, updated_by, date_created, date_updated)
  VALUES (p_sid, r.organization_sid, p_row, v, h, r.last_hash, d, p_message, p_user, ts, ts);
  UPDATE record_rows SET version = v, last_hash = h, date_updated = ts,
         updated_by = CASE WHEN EXISTS (SELECT 1 FROM users u WHERE u.sid = p_user) THEN p_user ELSE updated_by END
   WHERE sid = p_row;
  RETURN QUERY SELECT v, h;
END;
$$;
