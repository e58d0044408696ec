-- Access changes, announced live (issue 22, points 4 and 5): a change of someone's
-- personnel record (added, removed, made Admin or not, archived, date_end) or of their
-- project roles (given, changed, taken away) is pg_notify'd on `records_access` as
-- {"user", "organization", "project", "xid"} (project null for the personnel record; xid the
-- writing transaction's, so that a stream opened after the commit, whose opening snapshot
-- sees it, is not told of it). Every server process hears it at commit (core/live/hub.ts)
-- and re-reads that person's standing for their open streams at once; the notification
-- stream tells the app (`event: access`).
-- Triggers rather than calls in the services: every writer (the API, the CLI, the workflow
-- engine, a cascade from a deleted project, personnel or organization) is covered.
-- PostgreSQL sends identical payloads of one transaction once; the process ignores
-- changes of people who have no stream open there.
CREATE OR REPLACE FUNCTION records_access_of_project_members() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A membership deleted with its personnel finds no personnel row: the personnel trigger speaks for it.
  PERFORM pg_notify('records_access', json_build_object('user', p.user_sid, 'organization', p.organization_sid, 'project', m.project_sid, 'xid', pg_current_xact_id()::text)::text)
     FROM (SELECT DISTINCT project_sid, personnel_sid FROM changed_members) m JOIN personnel p ON p.sid = m.personnel_sid;
  RETURN NULL;
END $$;
