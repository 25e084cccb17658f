CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"subject" text NOT NULL,
	"kind" text NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_subject_unique" UNIQUE("subject")
);
--> statement-breakpoint
CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"character_id" text NOT NULL,
	"owner_account_id" text,
	"goal" jsonb,
	"goals_paused" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agents_character_id_unique" UNIQUE("character_id")
);
--> statement-breakpoint
CREATE TABLE "bank" (
	"character_id" text NOT NULL,
	"item_id" text NOT NULL,
	"quantity" integer NOT NULL,
	CONSTRAINT "bank_character_id_item_id_pk" PRIMARY KEY("character_id","item_id"),
	CONSTRAINT "bank_quantity_positive" CHECK ("bank"."quantity" > 0)
);
--> statement-breakpoint
CREATE TABLE "characters" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"name" text NOT NULL,
	"x" integer NOT NULL,
	"z" integer NOT NULL,
	"health" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "characters_health_non_negative" CHECK ("characters"."health" >= 0)
);
--> statement-breakpoint
CREATE TABLE "equipment" (
	"character_id" text NOT NULL,
	"slot" text NOT NULL,
	"item_id" text NOT NULL,
	CONSTRAINT "equipment_character_id_slot_pk" PRIMARY KEY("character_id","slot")
);
--> statement-breakpoint
CREATE TABLE "inventory" (
	"character_id" text NOT NULL,
	"slot" smallint NOT NULL,
	"item_id" text NOT NULL,
	"quantity" integer NOT NULL,
	CONSTRAINT "inventory_character_id_slot_pk" PRIMARY KEY("character_id","slot"),
	CONSTRAINT "inventory_slot_range" CHECK ("inventory"."slot" between 0 and 27),
	CONSTRAINT "inventory_quantity_positive" CHECK ("inventory"."quantity" > 0)
);
--> statement-breakpoint
CREATE TABLE "skills" (
	"character_id" text NOT NULL,
	"skill" text NOT NULL,
	"xp" double precision NOT NULL,
	CONSTRAINT "skills_character_id_skill_pk" PRIMARY KEY("character_id","skill"),
	CONSTRAINT "skills_xp_range" CHECK ("skills"."xp" >= 0 and "skills"."xp" <= 200000000)
);
--> statement-breakpoint
CREATE TABLE "trades" (
	"id" text PRIMARY KEY NOT NULL,
	"player_a" text NOT NULL,
	"player_b" text NOT NULL,
	"gave_a" jsonb NOT NULL,
	"gave_b" jsonb NOT NULL,
	"completed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_owner_account_id_accounts_id_fk" FOREIGN KEY ("owner_account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank" ADD CONSTRAINT "bank_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "characters" ADD CONSTRAINT "characters_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "equipment" ADD CONSTRAINT "equipment_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory" ADD CONSTRAINT "inventory_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "skills" ADD CONSTRAINT "skills_character_id_characters_id_fk" FOREIGN KEY ("character_id") REFERENCES "public"."characters"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trades" ADD CONSTRAINT "trades_player_a_characters_id_fk" FOREIGN KEY ("player_a") REFERENCES "public"."characters"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trades" ADD CONSTRAINT "trades_player_b_characters_id_fk" FOREIGN KEY ("player_b") REFERENCES "public"."characters"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "characters_name_lower_unique" ON "characters" USING btree (lower("name"));