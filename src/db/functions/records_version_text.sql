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
