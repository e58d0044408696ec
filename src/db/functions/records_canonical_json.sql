-- Canonical JSON, as the version hash is computed over it (docs/versions.md): object
-- keys sorted by code point, no insignificant whitespace, strings escaped as JSON does.
-- src/core/canonical-json.ts is the same in TypeScript; records_version_text writes out the
-- hash's one shape with it, and test/modules/db-functions.test.ts proves the three agree.
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
