CREATE TABLE "world_lease" (
	"id" smallint PRIMARY KEY NOT NULL,
	"epoch" bigint NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "world_lease_one_row" CHECK ("world_lease"."id" = 1)
);
