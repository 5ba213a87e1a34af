/** The input and output schemas of `create_delivery` (README "Agents (MCP)"; `docs/mcp.md`, "Tools"). */
import { DeliveryLocation, TaskCreateParams } from 'delivery-task-sdk/schemas';
import * as z from 'zod/mini';
import { TaskView } from '../task-view.js';

// The create fields of the SDK, less the seller id (a secret: the client sends its own).
const { sellerId: _sellerId, ...createFields } = TaskCreateParams.shape;

/**
 * The create fields of the SDK with `orderNumber` and `deliveryLocation` required, plus the quote and the
 * token.
 */
export const CreateDeliveryInput = z.strictObject({
  ...createFields,
  orderNumber: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(200),
      z.describe('Your order number: each order is booked once, and a repeated call returns its task'),
    ),
  deliveryLocation: DeliveryLocation.check(z.describe('Where to deliver: the "to" of the estimate')),
  estimateId: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(200),
      z.describe('An estimateId from estimate_delivery in this session'),
    ),
  confirmationToken: z.optional(
    z
      .string()
      .check(
        z.maxLength(200),
        z.describe(
          'From the first call (when the client cannot ask the person): the same arguments plus this token book',
        ),
      ),
  ),
});
export type CreateDeliveryInput = z.output<typeof CreateDeliveryInput>;
/** The create parameters of a call: its arguments less `estimateId` and `confirmationToken`. */
export type CreateParams = Omit<CreateDeliveryInput, 'estimateId' | 'confirmationToken'>;

/** The day's spending in a result or a refusal. */
export const Spending = z.object({
  day: z.string(),
  spentTodayKwd: z.string(),
  dailyCapKwd: z.optional(z.string()),
  roomLeftTodayKwd: z.optional(z.string()),
});

/** What `create_delivery` answers. */
export const CreateDeliveryOutput = z.object({
  status: z.enum(['booked', 'already_booked', 'confirmation_required']),
  task: z.optional(TaskView),
  charged: z.optional(z.boolean().check(z.describe('A fee was spent by this call'))),
  feeKwd: z.optional(z.string().check(z.describe('The fee counted for this booking, KWD'))),
  spending: z.optional(Spending),
  confirmationToken: z.optional(z.string()),
  confirmationExpiresAt: z.optional(z.string()),
  wouldBook: z.optional(
    z.object({
      orderNumber: z.string(),
      deliverTo: z.string(),
      pickup: z.string(),
      feeKwd: z.string(),
      walletAfterKwd: z.optional(z.string()),
    }),
  ),
  next: z.optional(z.string()),
  warnings: z.optional(z.array(z.string())),
});
