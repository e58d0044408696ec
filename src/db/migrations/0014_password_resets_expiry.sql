-- The retention job deletes expired password-reset and invitation tags (src/jobs/retention.ts): by their expiry.
CREATE INDEX "password_resets_expires_idx" ON "password_resets" USING btree ("expires_at");
