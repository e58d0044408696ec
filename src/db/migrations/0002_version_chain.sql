-- Canonical JSON, as the version hash is computed over it (docs/versions.md): object
-- keys sorted by code point, no insignificant whitespace, strings escaped as JSON does.
-- src/modules/versions/chain.ts implements the same in TypeScript to verify.
CREATE OR REPLACE FUNCTION records_canonical_json(j jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  result text;
BEGIN
  CASE jsonb_typeof(j)
    WHEN 'object' THEN
      SELECT '{' || coalesce(string_agg(to_jsonb(e.key)::text || ':' || records_canonical_json(e.value), ',' ORDER BY e.key COLLATE "C"), '') || '}'
        INTO result FROM jsonb_each(j) AS e;
    WHEN 'array' THEN
      SELECT '[' || coalesce(string_agg(records_canonical_json(a.value), ',' ORDER BY a.ord), '') || ']'
        INTO result FROM jsonb_array_elements(j) WITH ORDINALITY AS a(value, ord);
    ELSE
      result := j::text;
  END CASE;
  RETURN result;
END;
$$;
--> statement-breakpoint
-- The data a version keeps: the row's fields and its cells by column sid.
CREATE OR REPLACE FUNCTION records_row_data(p_row text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'name', r.name,
    'description', r.description,
    'is_locked', r.is_locked,
    'is_archived', r.is_archived,
    'cells', coalesce((SELECT jsonb_object_agg(c.column_sid, c.data) FROM cells c WHERE c.row_sid = r.sid), '{}'::jsonb))
  FROM record_rows r WHERE r.sid = p_row
$$;
--> statement-breakpoint
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
  h := encode(sha256(convert_to(records_canonical_json(jsonb_build_object(
         'row', p_row, 'version', v, 'previousHash', r.last_hash, 'data', d,
         'updated_by', p_user, 'date_created', ts_text)), 'UTF8')), 'hex');
  INSERT INTO versions (sid, organization_sid, row_sid, version, hash, previous_hash, data, activity_message, updated_by, date_created, date_updated)
  VALUES (p_sid, r.organization_sid, p_row, v, h, r.last_hash, d, p_message, p_user, ts, ts);
  UPDATE record_rows SET version = v, last_hash = h, date_updated = ts WHERE sid = p_row;
  RETURN QUERY SELECT v, h;
END;
$$;
--> statement-breakpoint
ALTER TABLE organizations ADD CONSTRAINT organizations_credits_check CHECK (credits >= 0);
--> statement-breakpoint
-- Built-in widgets: free, available to every organization.
INSERT INTO widgets (sid, organization_sid, name, description, kind, price, addable_at_readonly) VALUES
  ('builtinWidgetTxt', NULL, 'Text', 'Free text.', 'text', 0, false),
  ('builtinWidgetStp', NULL, 'Steps', 'The steps of a workflow, run on a row.', 'steps', 0, false),
  ('builtinWidgetNtf', NULL, 'Send notification', 'Workflow step: notifies personnel.', 'notify', 0, false),
  ('builtinWidgetSet', NULL, 'Set cell', 'Workflow step: sets a cell of the row.', 'set_cell', 0, false),
  ('builtinWidgetLck', NULL, 'Lock row', 'Workflow step: locks the row.', 'lock_row', 0, false),
  ('builtinWidgetWai', NULL, 'Wait for event', 'Workflow step: pauses until a named event arrives.', 'wait_event', 0, false),
  ('builtinWidgetSig', NULL, 'Signature', 'A sign-off that may be added to a locked row.', 'signature', 0, true);
