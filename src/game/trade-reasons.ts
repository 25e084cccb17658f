// Why a trade request is refused (each with the message the player is shown) and why a trade ends.

export const TRADE_ERROR_MESSAGES = {
  not_found: "There is no such trade.",
  not_participant: "You are not the player who can do that in this trade.",
  invalid_slot: "That inventory slot holds nothing to offer.",
  invalid_quantity: "The quantity must be a whole number of at least 1.",
  insufficient_items: "You do not have that many of the item.",
  inventory_full: "An inventory has no room for the items received.",
  untradeable: "That item cannot be traded.",
  wrong_stage: "The trade is not at a stage that allows that.",
  self_trade: "You cannot trade with yourself.",
  player_offline: "That player is not online.",
  not_in_same_world: "That player is in another world.",
  too_far: "That player is too far away.",
  already_trading: "One of you is already trading.",
  commit_failed: "The trade could not be saved, so nothing moved.",
  offer_changed:
    "An item offered is no longer there: the offer shows what is left. Check it and accept again.",
} as const;
export type TradeErrorReason = keyof typeof TRADE_ERROR_MESSAGES;

export type TradeCancelReason =
  | "cancelled"
  | "declined"
  | "partner_disconnected"
  | "disconnected"
  | "expired"
  | "partner_busy"
  | "commit_failed"
  | "server_shutdown"
  | "player_died";
