ALTER TABLE "trades" DROP CONSTRAINT "trades_player_a_characters_id_fk";
--> statement-breakpoint
ALTER TABLE "trades" DROP CONSTRAINT "trades_player_b_characters_id_fk";
--> statement-breakpoint
ALTER TABLE "trades" ALTER COLUMN "player_a" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "trades" ALTER COLUMN "player_b" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "trades" ADD CONSTRAINT "trades_player_a_characters_id_fk" FOREIGN KEY ("player_a") REFERENCES "public"."characters"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "trades" ADD CONSTRAINT "trades_player_b_characters_id_fk" FOREIGN KEY ("player_b") REFERENCES "public"."characters"("id") ON DELETE set null ON UPDATE no action;