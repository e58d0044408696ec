-- The activity log's line for each project created or changed, naming the fields that
-- changed: statement-level, over the transition tables (triggers of migration 0039).
CREATE OR REPLACE FUNCTION records_activity_of_projects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO activities (organization_sid, user_sid, model, object_sid, target, action, field)
    SELECT n.organization_sid, n.created_by, 'project', n.sid, n.name, 'Created', '' FROM new_projects n;
  ELSE
    INSERT INTO activities (organization_sid, user_sid, model, object_sid, target, action, field)
    SELECT c.organization_sid, c.updated_by, 'project', c.sid, c.name, 'Updated', c.changed
      FROM (SELECT n.organization_sid, n.updated_by, n.sid, n.name, concat_ws(', ',
             CASE WHEN n.name IS DISTINCT FROM o.name THEN 'name' END,
             CASE WHEN n.description IS DISTINCT FROM o.description THEN 'description' END,
             CASE WHEN n.parent_sid IS DISTINCT FROM o.parent_sid THEN 'parent' END,
             CASE WHEN n.date_start IS DISTINCT FROM o.date_start THEN 'date_start' END,
             CASE WHEN n.date_end IS DISTINCT FROM o.date_end THEN 'date_end' END,
             CASE WHEN n.is_archived IS DISTINCT FROM o.is_archived THEN 'is_archived' END,
             CASE WHEN n.open_to_organization IS DISTINCT FROM o.open_to_organization THEN 'open_to_organization' END,
             CASE WHEN n.metadata IS DISTINCT FROM o.metadata THEN 'metadata' END) AS changed
              FROM new_projects n JOIN old_projects o ON o.sid = n.sid) c
     WHERE c.changed <> '';
  END IF;
  RETURN NULL;
END;
$$;
