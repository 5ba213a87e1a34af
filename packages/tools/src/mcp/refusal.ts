/**
 * A refusal of a tool call by the policy: a tool error result, never an exception (README "Agents (MCP)").
 */

/**
 * The rules a tool call can be refused by: `docs/mcp.md`, "The policy" (`input`: arguments the schema
 * refuses).
 */
export type RefusalRule =
  | 'allow'
  | 'input'
  | 'quote'
  | 'quoteMargin'
  | 'maxFeeKwd'
  | 'dailyCapKwd'
  | 'walletFloorKwd'
  | 'confirmation'
  | 'orderInProgress'
  | 'topUpLinkDelivery'
  | 'store';

/** Facts a refusal carries for the agent: amounts as KWD text, limits, what to do next. */
export type RefusalDetails = Readonly<
  Record<string, string | number | boolean | readonly string[] | undefined>
>;

/** A tool call stopped by a rule. `message` says why and how much room is left. */
export class Refusal extends Error {
  override readonly name = 'Refusal';
  /** The rule that refused. */
  readonly rule: RefusalRule;
  /** The figures behind it (`roomLeftKwd`, `limitKwd`, …). */
  readonly details: RefusalDetails;

  constructor(rule: RefusalRule, message: string, details: RefusalDetails = {}) {
    super(message);
    this.rule = rule;
    this.details = details;
  }
}
