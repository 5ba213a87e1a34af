/**
 * A refusal: the policy (or the state of the account) stops a tool call. It becomes a tool error result
 * naming the rule and the room left (README "Agents (MCP)"), never an exception that ends the session.
 */

/**
 * The rules a tool call can be refused by, as named in refusals and in `docs/mcp.md` ("The policy").
 *
 * | rule | refuses |
 * |---|---|
 * | `allow` | a tool the policy does not allow |
 * | `input` | arguments the tool's schema does not accept |
 * | `quote` | a booking without a quote of this session, with an expired one, or for other coordinates |
 * | `quoteMargin` | a booking whose fee, re-quoted, rose above the quote by more than the margin |
 * | `maxFeeKwd` | a fee above the per-delivery limit |
 * | `dailyCapKwd` | a fee that would take the day's spending past the cap |
 * | `walletFloorKwd` | a booking that would leave the wallet below the floor |
 * | `confirmation` | a booking not confirmed: declined, or a token that is missing, unknown, expired, used or for other arguments |
 * | `orderInProgress` | an order another session is booking right now |
 * | `topUpLinkDelivery` | a top-up link that could only reach the person through the model |
 * | `store` | a booking when the store that counts spending does not answer (nothing is sent) |
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
export type RefusalDetails = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

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
