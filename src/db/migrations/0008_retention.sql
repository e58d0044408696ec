CREATE INDEX "credentials_session_last_used_idx" ON "credentials" USING btree ("last_used_at") WHERE kind = 'session';--> statement-breakpoint
CREATE INDEX "login_failures_window_idx" ON "login_failures" USING btree ("window_start");--> statement-breakpoint
CREATE INDEX "mail_outbox_sent_idx" ON "mail_outbox" USING btree ("date_sent") WHERE status = 'sent';--> statement-breakpoint
CREATE INDEX "mail_outbox_failed_idx" ON "mail_outbox" USING btree ("date_created") WHERE status = 'failed';--> statement-breakpoint
-- Idempotency entries never keep a secret any more (core/idempotency.ts): drop the stored
-- answers of API key creations made before, which hold the key in clear.
DELETE FROM "idempotency_keys" WHERE "response_body" LIKE '%"key":"%';
