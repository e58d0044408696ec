-- Files (issue 25): descriptors, the stored objects the GC coordinates on, and each organization's usage against its quota.
CREATE TABLE "file_objects" (
	"sha256" text PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"date_stored" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "file_usage" (
	"organization_sid" text PRIMARY KEY NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "file_usage_bytes_check" CHECK ("file_usage"."bytes" >= 0)
);
--> statement-breakpoint
CREATE TABLE "files" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"sha256" text NOT NULL,
	"size" bigint NOT NULL,
	"media_type" text NOT NULL,
	"name" text NOT NULL,
	"uploaded_by" text NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "files_size_check" CHECK ("files"."size" >= 0)
);
--> statement-breakpoint
ALTER TABLE "file_usage" ADD CONSTRAINT "file_usage_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_uploaded_by_personnel_sid_fk" FOREIGN KEY ("uploaded_by") REFERENCES "public"."personnel"("sid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "file_objects_date_stored_idx" ON "file_objects" USING btree ("date_stored");--> statement-breakpoint
CREATE INDEX "files_org_order_idx" ON "files" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "files_sha256_idx" ON "files" USING btree ("sha256");--> statement-breakpoint
CREATE INDEX "files_uploaded_by_idx" ON "files" USING btree ("uploaded_by");