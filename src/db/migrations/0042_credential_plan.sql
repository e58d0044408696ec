-- The functions of src/db/functions whose text changed (npm run db:functions): records_credential.
-- The account of a credential and, with p_org, the caller's personnel record in that
-- organization: the lookup every authenticated request makes (src/core/auth.ts, which
-- applies the current-member rule to date_end). A key lookup by unique keys, whose plan is
-- the same for every value: the function keeps one generic plan per connection
-- (plan_cache_mode = force_generic_plan inside it) instead of the pool's plan per
-- execution, which cost 5–8 times this statement's execution (docs/performance.md).
-- Nothing is cached but the plan: every call reads the credential, the account and the
-- personnel record as committed.
CREATE OR REPLACE FUNCTION records_credential(p_key_hash text, p_idle_minutes integer, p_org text)
RETURNS TABLE (user_sid text, email text, first_name text, last_name text, sid text, kind text, stale boolean,
               email_verified boolean, is_instance_admin boolean, organization_sid text, organization_name text,
               personnel_sid text, is_administrator boolean, is_archived boolean, date_end date)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
  SELECT u.sid, u.email, u.first_name, u.last_name, c.sid, c.kind,
         c.last_used_at < now() - interval '60 seconds', u.email_verified_at IS NOT NULL, u.is_instance_admin,
         o.sid, o.name, p.sid, p.is_administrator, p.is_archived, p.date_end
    FROM credentials c JOIN users u ON u.sid = c.user_sid
    LEFT JOIN organizations o ON o.sid = p_org
    LEFT JOIN personnel p ON p.organization_sid = o.sid AND p.user_sid = u.sid
   WHERE c.key_hash = p_key_hash AND u.is_active
     AND (c.kind = 'apikey' OR c.last_used_at > now() - make_interval(mins => p_idle_minutes));
END;
$$;
