-- The uid prefix a table without a unique_code of its own gives its rows: the first three
-- letters or digits of its name, in capitals ('REC' when it has none).
CREATE OR REPLACE FUNCTION records_table_code(p_name text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(nullif(upper(left(regexp_replace(p_name, '[^A-Za-z0-9]', '', 'g'), 3)), ''), 'REC')
$$;
