-- The activity log's line for each version of a row (a row's creation, its cells, sections,
-- fields and states all append one): statement-level, over the transition table, so an
-- import of many rows adds its lines in one statement (trigger of migration 0039).
CREATE OR REPLACE FUNCTION records_activity_of_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO activities (organization_sid, user_sid, model, object_sid, target, action, field, version, date_created)
  SELECT v.organization_sid, v.updated_by, 'row', v.row_sid, coalesce(r.name, ''),
         CASE WHEN v.version = 1 THEN 'Created' ELSE 'Updated' END, v.activity_message, v.version, v.date_created
    FROM new_versions v LEFT JOIN record_rows r ON r.sid = v.row_sid
   ORDER BY v.date_created, v.version;
  RETURN NULL;
END;
$$;
