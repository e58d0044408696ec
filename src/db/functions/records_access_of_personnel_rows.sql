-- A personnel record added or removed: its person's standing in the organization changed
-- (records_access_of_project_members says why these are triggers).
CREATE OR REPLACE FUNCTION records_access_of_personnel_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('records_access', json_build_object('user', p.user_sid, 'organization', p.organization_sid, 'project', NULL, 'xid', pg_current_xact_id()::text)::text)
     FROM (SELECT DISTINCT user_sid, organization_sid FROM changed_personnel) p;
  RETURN NULL;
END $$;
