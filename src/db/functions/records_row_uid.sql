-- A row's uid: its table's prefix and its number, at least six digits.
CREATE OR REPLACE FUNCTION records_row_uid(p_code text, p_number integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_code || '-' || CASE WHEN p_number < 1000000 THEN lpad(p_number::text, 6, '0') ELSE p_number::text END
$$;
