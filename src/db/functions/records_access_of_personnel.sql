-- A personnel record changed in what it grants (is_administrator, is_archived, date_end; its
-- trigger skips a name, a title or a setting): announced as records_access_of_project_members says.
CREATE OR REPLACE FUNCTION records_access_of_personnel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('records_access', json_build_object('user', NEW.user_sid, 'organization', NEW.organization_sid, 'project', NULL, 'xid', pg_current_xact_id()::text)::text);
  RETURN NULL;
END $$;
