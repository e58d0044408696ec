-- The functions of src/db/functions whose text changed (npm run db:functions): records_row_data, records_version_text.
-- The data a version keeps (docs/versions.md): the row's fields, its cells by column sid and,
-- once it has any, its sections in order (each with its content as the JSON text written).
-- PL/pgSQL rather than SQL for its plan (session 16): a SQL function that cannot be inlined
-- is planned again at every call from another function (records_append_version's one call a
-- version: 1.3 ms of planning for 0.16 ms of work); PL/pgSQL keeps its statement's plan for
-- the session.
CREATE OR REPLACE FUNCTION records_row_data(p_row text) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
    SELECT jsonb_build_object(
      'name', r.name,
      'description', r.description,
      'is_locked', r.is_locked,
      'is_archived', r.is_archived,
      'cells', coalesce((SELECT jsonb_object_agg(c.column_sid, c.data) FROM cells c WHERE c.row_sid = r.sid), '{}'::jsonb))
      || coalesce((SELECT jsonb_build_object('sections', jsonb_agg(jsonb_build_object(
             'sid', s.sid, 'name', s.name, 'description', s.description, 'order', s."order", 'is_archived', s.is_archived, 'data', s.data)
             ORDER BY s."order", s.sid))
           FROM sections s WHERE s.row_sid = r.sid HAVING count(*) > 0), '{}'::jsonb)
    FROM record_rows r WHERE r.sid = p_row);
END;
$$;
--> statement-breakpoint
-- The canonical JSON a version's hash is computed over (docs/versions.md), written out for
-- the one shape it has: the same text records_canonical_json() makes of
-- {row, version, previousHash, data, updated_by, date_created} (keys by code point, no
-- whitespace, strings escaped as JSON does), without its recursive plpgsql calls (one per
-- object and value, ~20 a version), which were the larger part of a version's cost.
-- PL/pgSQL rather than SQL for its plan, as records_row_data (session 16).
CREATE OR REPLACE FUNCTION records_version_text(p_row text, p_version integer, p_previous text, p_data jsonb, p_user text, p_date text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN (
    SELECT '{"data":{"cells":'
        || coalesce((SELECT '{' || string_agg(to_jsonb(e.key)::text || ':' || e.value::text, ',' ORDER BY e.key COLLATE "C") || '}'
                       FROM jsonb_each(p_data -> 'cells') e), '{}')
        || ',"description":' || coalesce((p_data -> 'description')::text, 'null')
        || ',"is_archived":' || coalesce((p_data -> 'is_archived')::text, 'null')
        || ',"is_locked":' || coalesce((p_data -> 'is_locked')::text, 'null')
        || ',"name":' || coalesce((p_data -> 'name')::text, 'null')
        || CASE WHEN p_data ? 'sections' THEN ',"sections":' || records_canonical_json(p_data -> 'sections') ELSE '' END
        || '},"date_created":' || coalesce(to_jsonb(p_date)::text, 'null')
        || ',"previousHash":' || coalesce(to_jsonb(p_previous)::text, 'null')
        || ',"row":' || coalesce(to_jsonb(p_row)::text, 'null')
        || ',"updated_by":' || coalesce(to_jsonb(p_user)::text, 'null')
        || ',"version":' || coalesce(p_version::text, 'null')
        || '}');
END;
$$;
