CREATE TABLE "workflow_execution_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"execution_sid" text NOT NULL,
	"step_sid" text,
	"user_sid" text,
	"event" text NOT NULL,
	"status" text DEFAULT 'info' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_executions" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"workflow_sid" text NOT NULL,
	"row_sid" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"current_step_sid" text,
	"waiting_for" text,
	"variables" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"error" text,
	"started_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"name" text NOT NULL,
	"period" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_finished" timestamp (6) with time zone
);
--> statement-breakpoint
CREATE TABLE "notifications" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"sender_sid" text,
	"recipient_sid" text NOT NULL,
	"parent_sid" text,
	"name" text NOT NULL,
	"body" text DEFAULT '' NOT NULL,
	"rows" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"is_read" boolean DEFAULT false NOT NULL,
	"should_email" boolean DEFAULT false NOT NULL,
	"is_deleted_by_recipient" boolean DEFAULT false NOT NULL,
	"updated_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "steps" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"workflow_sid" text NOT NULL,
	"widget_sid" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"order" integer NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"sid" text PRIMARY KEY NOT NULL,
	"organization_sid" text NOT NULL,
	"table_sid" text,
	"parent" integer,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"is_archived" boolean DEFAULT false NOT NULL,
	"created_by" text,
	"date_created" timestamp (6) with time zone DEFAULT now() NOT NULL,
	"date_updated" timestamp (6) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "workflow_execution_log" ADD CONSTRAINT "workflow_execution_log_execution_sid_workflow_executions_sid_fk" FOREIGN KEY ("execution_sid") REFERENCES "public"."workflow_executions"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD CONSTRAINT "workflow_executions_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD CONSTRAINT "workflow_executions_workflow_sid_workflows_sid_fk" FOREIGN KEY ("workflow_sid") REFERENCES "public"."workflows"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD CONSTRAINT "workflow_executions_row_sid_record_rows_sid_fk" FOREIGN KEY ("row_sid") REFERENCES "public"."record_rows"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflow_executions" ADD CONSTRAINT "workflow_executions_started_by_users_sid_fk" FOREIGN KEY ("started_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_sender_sid_personnel_sid_fk" FOREIGN KEY ("sender_sid") REFERENCES "public"."personnel"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notifications" ADD CONSTRAINT "notifications_recipient_sid_personnel_sid_fk" FOREIGN KEY ("recipient_sid") REFERENCES "public"."personnel"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_workflow_sid_workflows_sid_fk" FOREIGN KEY ("workflow_sid") REFERENCES "public"."workflows"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_widget_sid_widgets_sid_fk" FOREIGN KEY ("widget_sid") REFERENCES "public"."widgets"("sid") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_organization_sid_organizations_sid_fk" FOREIGN KEY ("organization_sid") REFERENCES "public"."organizations"("sid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_table_sid_record_tables_sid_fk" FOREIGN KEY ("table_sid") REFERENCES "public"."record_tables"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_created_by_users_sid_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("sid") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "workflow_execution_log_execution_idx" ON "workflow_execution_log" USING btree ("execution_sid","id");--> statement-breakpoint
CREATE INDEX "workflow_executions_workflow_row_idx" ON "workflow_executions" USING btree ("workflow_sid","row_sid","date_created");--> statement-breakpoint
CREATE INDEX "workflow_executions_row_idx" ON "workflow_executions" USING btree ("row_sid","date_created");--> statement-breakpoint
CREATE INDEX "workflow_executions_org_idx" ON "workflow_executions" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE UNIQUE INDEX "job_runs_name_period_key" ON "job_runs" USING btree ("name","period");--> statement-breakpoint
CREATE INDEX "notifications_recipient_inbox_idx" ON "notifications" USING btree ("recipient_sid","date_created","sid") WHERE NOT is_deleted_by_recipient;--> statement-breakpoint
CREATE INDEX "notifications_sender_idx" ON "notifications" USING btree ("sender_sid","date_created");--> statement-breakpoint
CREATE INDEX "notifications_parent_idx" ON "notifications" USING btree ("parent_sid");--> statement-breakpoint
CREATE UNIQUE INDEX "steps_workflow_order_key" ON "steps" USING btree ("workflow_sid","order");--> statement-breakpoint
CREATE INDEX "steps_widget_idx" ON "steps" USING btree ("widget_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "steps_org_order_idx" ON "steps" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "workflows_org_order_idx" ON "workflows" USING btree ("organization_sid","date_created","sid");--> statement-breakpoint
CREATE INDEX "workflows_table_idx" ON "workflows" USING btree ("table_sid","date_created","sid");