-- The canonical JSON a version's hash is computed over (docs/versions.md), written out for
-- the one shape it has: the same text records_canonical_json() makes of
-- {row, version, previousHash, data, updated_by, date_created} (keys by code point, no
-- whitespace, strings escaped as JSON does), without its recursive plpgsql calls (one per
-- object and value, ~20 a version), which were the larger part of a version's cost.
CREATE OR REPLACE FUNCTION records_version_text(p_row text, p_version integer, p_previous text, p_data jsonb, p_user text, p_date text)
RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT '{"data":{"cells":'
      || coalesce((SELECT '{' || string_agg(to_jsonb(e.key)::text || ':' || e.value::text, ',' ORDER BY e.key COLLATE "C") || '}'
                     FROM jsonb_each(p_data -> 'cells') e), '{}')
      || ',"description":' || coalesce((p_data -> 'description')::text, 'null')
      || ',"is_archived":' || coalesce((p_data -> 'is_archived')::text, 'null')
      || ',"is_locked":' || coalesce((p_data -> 'is_locked')::text, 'null')
      || ',"name":' || coalesce((p_data -> 'name')::text, 'null')
      || '},"date_created":' || coalesce(to_jsonb(p_date)::text, 'null')
      || ',"previousHash":' || coalesce(to_jsonb(p_previous)::text, 'null')
      || ',"row":' || coalesce(to_jsonb(p_row)::text, 'null')
      || ',"updated_by":' || coalesce(to_jsonb(p_user)::text, 'null')
      || ',"version":' || coalesce(p_version::text, 'null')
      || '}'
$$;
--> statement-breakpoint
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
  UPDATE record_rows SET version = v, last_hash = h, date_updated = ts WHERE sid = p_row;
  RETURN QUERY SELECT v, h;
END;
$$;
