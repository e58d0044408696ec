ALTER TABLE "mail_outbox" ADD COLUMN "html" text;--> statement-breakpoint
ALTER TABLE "password_resets" ADD COLUMN "personnel_sid" text;--> statement-breakpoint
ALTER TABLE "personnel" ADD COLUMN "notification_email_chosen" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "personnel" ADD COLUMN "date_accepted" timestamp (6) with time zone;--> statement-breakpoint
ALTER TABLE "personnel" ADD COLUMN "invited_by" text;--> statement-breakpoint
-- Whoever was a member before consent was asked for keeps the mail they had (docs/decisions.md, "Consent before mail").
UPDATE "personnel" SET "date_accepted" = "date_created";
