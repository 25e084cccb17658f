ALTER TABLE "world_lease" DROP CONSTRAINT "world_lease_one_row";--> statement-breakpoint
ALTER TABLE "characters" ADD COLUMN "world" smallint;--> statement-breakpoint
ALTER TABLE "ground_items" ADD COLUMN "world" smallint DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "ground_items" DROP CONSTRAINT "ground_items_pkey";--> statement-breakpoint
ALTER TABLE "ground_items" ADD CONSTRAINT "ground_items_world_id_pk" PRIMARY KEY("world","id");--> statement-breakpoint
ALTER TABLE "world_lease" ADD CONSTRAINT "world_lease_world_id" CHECK ("world_lease"."id" >= 1);
