CREATE TABLE "ground_items" (
	"id" text PRIMARY KEY NOT NULL,
	"item_id" text NOT NULL,
	"quantity" integer NOT NULL,
	"x" integer NOT NULL,
	"z" integer NOT NULL,
	"owner_id" text,
	"dropped_tick" integer NOT NULL,
	CONSTRAINT "ground_items_quantity_positive" CHECK ("ground_items"."quantity" > 0)
);
