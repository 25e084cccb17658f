ALTER TABLE "accounts" ADD COLUMN "muted_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "banned_until" timestamp with time zone;