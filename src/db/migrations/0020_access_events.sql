-- Access changes, announced live (issue 22, points 4 and 5): a change of someone's
-- personnel record (added, removed, made Admin or not, archived, date_end) or of their
-- project roles (given, changed, taken away) is pg_notify'd on `records_access` as
-- {"user", "organization", "project"} (project null for the personnel record). Every server
-- process hears it at commit (core/live/hub.ts) and re-reads that person's standing for
-- their open streams at once; the notification stream tells the app (`event: access`).
-- Triggers rather than calls in the services: every writer (the API, the CLI, the workflow
-- engine, a cascade from a deleted project, personnel or organization) is covered.
-- PostgreSQL sends identical payloads of one transaction once; the process ignores
-- changes of people who have no stream open there.
CREATE FUNCTION records_access_of_project_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A membership deleted with its personnel finds no personnel row: the personnel trigger speaks for it.
  PERFORM pg_notify('records_access', json_build_object('user', p.user_sid, 'organization', p.organization_sid, 'project', m.project_sid)::text)
     FROM (SELECT DISTINCT project_sid, personnel_sid FROM changed_members) m JOIN personnel p ON p.sid = m.personnel_sid;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER records_access_project_members_inserted AFTER INSERT ON project_members
  REFERENCING NEW TABLE AS changed_members FOR EACH STATEMENT EXECUTE FUNCTION records_access_of_project_members();
--> statement-breakpoint
CREATE TRIGGER records_access_project_members_updated AFTER UPDATE ON project_members
  REFERENCING NEW TABLE AS changed_members FOR EACH STATEMENT EXECUTE FUNCTION records_access_of_project_members();
--> statement-breakpoint
CREATE TRIGGER records_access_project_members_deleted AFTER DELETE ON project_members
  REFERENCING OLD TABLE AS changed_members FOR EACH STATEMENT EXECUTE FUNCTION records_access_of_project_members();
--> statement-breakpoint
CREATE FUNCTION records_access_of_personnel_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('records_access', json_build_object('user', p.user_sid, 'organization', p.organization_sid, 'project', NULL)::text)
     FROM (SELECT DISTINCT user_sid, organization_sid FROM changed_personnel) p;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER records_access_personnel_inserted AFTER INSERT ON personnel
  REFERENCING NEW TABLE AS changed_personnel FOR EACH STATEMENT EXECUTE FUNCTION records_access_of_personnel_rows();
--> statement-breakpoint
CREATE TRIGGER records_access_personnel_deleted AFTER DELETE ON personnel
  REFERENCING OLD TABLE AS changed_personnel FOR EACH STATEMENT EXECUTE FUNCTION records_access_of_personnel_rows();
--> statement-breakpoint
-- An update only when it changes what the record grants (not a name, a title or a setting).
CREATE FUNCTION records_access_of_personnel() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('records_access', json_build_object('user', NEW.user_sid, 'organization', NEW.organization_sid, 'project', NULL)::text);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER records_access_personnel_updated AFTER UPDATE OF is_administrator, is_archived, date_end ON personnel
  FOR EACH ROW WHEN (OLD.is_administrator IS DISTINCT FROM NEW.is_administrator OR OLD.is_archived IS DISTINCT FROM NEW.is_archived
                     OR OLD.date_end IS DISTINCT FROM NEW.date_end)
  EXECUTE FUNCTION records_access_of_personnel();
