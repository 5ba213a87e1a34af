/** What creation and the order's lease share. */
import type { HeldPost } from './held-post.js';

/** When an earlier attempt of the order may have created its task. */
export interface PriorAttempt {
  /** When sending began, ms since the epoch: the start of the order's time window. */
  since: number;
  /**
   * When a lookup can decide, ms since the epoch: the last moment a POST may have reached the service plus
   * `listingDelayMs`.
   */
  decidableAt: number;
  /**
   * For a repeat delivery: the attempt was a first delivery's (or another create's not marked a repeat), so
   * its task, if any, is one of the order's earlier deliveries rather than this one's.
   */
  ofEarlierDelivery?: boolean;
  /**
   * The order's record says a POST may have been sent and was never answered (left `sending`, or `failed`
   * with an unknown outcome): a POST sent after a lookup finds no task of it is checked for a late commit
   * (`late-commit.ts`).
   */
  unanswered?: boolean;
}

/** What the holder of an order's lease checks before each POST. */
export interface SendGuard {
  /**
   * Throws when the lease was lost; else makes sure the record covers this POST's flight (`timeoutMs`, its
   * attempt timeout), as read when it resolves: send the POST in the same task, with no wait in between.
   */
  beforeAttempt(resend: boolean, timeoutMs?: number): Promise<void>;
  /**
   * The POST's attempt ended unanswered and its connection stays open (`held-post.ts`): the record's
   * `until` is kept ahead of it, as the lease is, until it ends, and the outcome is written only then (its
   * late answer is the order's task, even after the create failed); it is abandoned once the record, its
   * renewals failing, no longer covers it.
   */
  holdingOpen(post: HeldPost): void;
}
