-- Changes a cell's data and appends its row's version, in one round trip (the caller's
-- transaction holds the row's lock already). The cell is read and locked here, in a
-- statement of its own, so its data is the latest committed even when the caller's row
-- lock waited for another writer. The same data again changes nothing: new_version is
-- NULL. Returns the data before and the cell's date_updated as the API shows it.
CREATE OR REPLACE FUNCTION records_set_cell(p_cell text, p_data text, p_user text, p_version_sid text, p_message text)
RETURNS TABLE (new_version integer, previous_data text, updated_at text)
LANGUAGE plpgsql AS $$
DECLARE
  c record;
  v integer;
BEGIN
  SELECT cc.row_sid, cc.data, cc.date_updated INTO c FROM cells cc WHERE cc.sid = p_cell FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'cell % does not exist', p_cell USING ERRCODE = 'P0002';
  END IF;
  IF c.data = p_data THEN
    RETURN QUERY SELECT NULL::integer, c.data, to_char(c.date_updated AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
    RETURN;
  END IF;
  UPDATE cells SET data = p_data, updated_by = p_user, date_updated = now() WHERE sid = p_cell;
  SELECT a.version INTO v FROM records_append_version(p_version_sid, c.row_sid, p_user, p_message) a;
  RETURN QUERY SELECT v, c.data, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
END;
$$;
