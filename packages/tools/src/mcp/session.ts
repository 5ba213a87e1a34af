/** Everything the tools of one MCP session share. */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { DeliveryClient, Task } from 'delivery-task-sdk';
import type { ClientRedactor } from 'delivery-task-sdk/internal';
import { ConfirmationBook } from './confirmation.js';
import { DailySpend } from './daily-spend.js';
import { OrderClaims } from './order-claims.js';
import type { ResolvedPolicy } from './policy.js';
import { QuoteBook } from './quotes.js';
import { type TaskView, taskView } from './task-view.js';

/** The state of one MCP session. */
export class Session {
  readonly client: DeliveryClient;
  readonly policy: ResolvedPolicy;
  readonly server: Server;
  readonly quotes: QuoteBook;
  readonly confirmations: ConfirmationBook;
  readonly spend: DailySpend;
  readonly claims: OrderClaims;
  readonly #redactor: ClientRedactor;

  constructor(
    client: DeliveryClient,
    secrets: { sellerId: string; redactor: ClientRedactor },
    policy: ResolvedPolicy,
    server: Server,
  ) {
    const { sellerId } = secrets;
    this.#redactor = secrets.redactor;
    this.client = client;
    this.policy = policy;
    this.server = server;
    this.quotes = new QuoteBook(policy.now);
    this.confirmations = new ConfirmationBook(policy.now);
    const scope = { baseUrl: client.baseUrl, sellerId };
    this.spend = new DailySpend(policy.store, scope, policy.dailyCapFils, policy.now);
    this.claims = new OrderClaims(policy.store, scope);
  }

  /**
   * `value` without the client's API key and seller id, in any encoding the SDK's redaction knows: every
   * answer passes here.
   */
  redact<T>(value: T): T {
    return this.#redactor.value(value) as T;
  }

  /** `text` without the client's API key and seller id: what any text passes before it is cut to a bound. */
  redactText(text: string): string {
    return this.#redactor.text(text);
  }

  /**
   * A task as tool results show it (phones masked unless the policy reveals them), redacted before its fields
   * are cut.
   */
  view(task: Task): TaskView {
    return taskView(this.redact(task), { revealCustomerPhones: this.policy.revealCustomerPhones });
  }

  /**
   * The elicitation modes the client declared: `form` (ask a question), `url` (show a link to the person
   * only).
   */
  elicitation(): { form: boolean; url: boolean } {
    const declared = this.server.getClientCapabilities()?.elicitation;
    return { form: declared?.form !== undefined, url: declared?.url !== undefined };
  }
}
