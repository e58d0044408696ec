-- Creates a row's cell and appends its row's version, in one round trip (the caller's
-- transaction holds the row's lock already, and has found no cell of the row in the
-- column). Returns the new version and the cell's date as the API shows it.
CREATE OR REPLACE FUNCTION records_create_cell(
  p_cell text, p_organization text, p_row text, p_column text, p_widget text, p_data text, p_user text, p_version_sid text, p_message text)
RETURNS TABLE (new_version integer, updated_at text)
LANGUAGE plpgsql AS $$
DECLARE
  v integer;
BEGIN
  INSERT INTO cells (sid, organization_sid, row_sid, column_sid, widget_sid, data, created_by, updated_by)
  VALUES (p_cell, p_organization, p_row, p_column, p_widget, p_data, p_user, p_user);
  SELECT a.version INTO v FROM records_append_version(p_version_sid, p_row, p_user, p_message) a;
  RETURN QUERY SELECT v, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"');
END;
$$;
