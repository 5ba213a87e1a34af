/**
 * The shop: an Express application over the Delivery Task Service.
 *
 * - `POST /orders` places an order and creates its delivery exactly once, with the order number as the key.
 * - `POST /orders/:orderNumber/delivery` tries the delivery again (after an unknown outcome, say): same key.
 * - `GET /orders/:orderNumber` shows the order, its KWD total and its delivery status.
 * - `/webhooks/delivery` receives the service's status webhooks through `createWebhookHandler`.
 * - `GET /wallet` reports the balance and, below the threshold, alerts and returns a top-up link.
 * - `POST /jobs/sync-tasks` runs the listing job (`main.ts` also runs it every minute).
 */
import {
  type DeliveryClient,
  DeliveryError,
  type DeliveryStore,
  InsufficientBalanceError,
  kwd,
  RequestValidationError,
  TaskCreationOutcomeUnknownError,
} from 'delivery-task-sdk';
import { createWebhookHandler, type WebhookEvent, type WebhookHandler } from 'delivery-task-sdk/webhooks';
import express, { type Express, type Response } from 'express';
import { deliverOrder } from './delivery.js';
import { type ListingReport, syncAllTasks } from './jobs.js';
import { isNewerStatus, type Order, OrderBook, OrderInputError, parseOrder } from './orders.js';
import { checkWallet, type WalletReport, type WalletSettings } from './wallet.js';

export interface ShopOptions {
  /** The client of the service (its options, or `DELIVERY_API_KEY`, `DELIVERY_SELLER_ID`, `DELIVERY_BASE_URL`). */
  readonly client: DeliveryClient;
  /** Wallet alert settings; defaults: below KWD 20.000, ask for KWD 50.000, log the alert. */
  readonly wallet?: Partial<WalletSettings>;
  /** Shared by every instance of the shop (the client's own store too): see README "Running several instances". */
  readonly store?: DeliveryStore;
  /** Where the shop's own lines go. Default `console.log`. */
  readonly log?: (line: string) => void;
}

export interface Shop {
  readonly app: Express;
  readonly orders: OrderBook;
  readonly webhooks: WebhookHandler;
  /** The listing job: every task, `for await`, each order brought up to date. */
  syncAllTasks(signal?: AbortSignal): Promise<ListingReport>;
  checkWallet(): Promise<WalletReport>;
  /** Waits for the webhook events accepted so far, then stops the handler. */
  close(): Promise<void>;
}

/** What the shop shows of an order. */
export type OrderView = ReturnType<typeof view>;

function view(order: Order) {
  return {
    orderNumber: order.orderNumber,
    lines: order.lines,
    total: order.total,
    totalFormatted: kwd.format(order.total),
    collectCash: order.collectCash,
    delivery: { ...order.delivery },
  };
}

export function createShop(options: ShopOptions): Shop {
  const { client } = options;
  const log = options.log ?? ((line: string) => console.log(line));
  const orders = new OrderBook();
  const walletSettings: WalletSettings = {
    lowBalance: options.wallet?.lowBalance ?? '20.000',
    topUpAmount: options.wallet?.topUpAmount ?? '50.000',
    onLowBalance:
      options.wallet?.onLowBalance ??
      ((alert) =>
        log(
          `wallet low: ${kwd.format(alert.balance)} (below ${kwd.format(alert.threshold)}); top up at ${alert.paymentUrl}`,
        )),
  };

  const webhooks = createWebhookHandler({
    client, // final statuses are read back with GET tasks/{id} before onEvent: webhooks are not signed
    confirm: ['delivered', 'cancelled'],
    ...(options.store ? { store: options.store } : {}),
    onEvent: (event: WebhookEvent) => {
      // By task id; by order number when the webhook came before the create's answer was recorded.
      const order =
        orders.byTask(event.taskId) ??
        (event.task.orderNumber ? orders.get(event.task.orderNumber) : undefined);
      if (order === undefined) return; // a task this shop did not create
      if (order.delivery.taskId !== undefined && order.delivery.taskId !== event.taskId) return;
      order.delivery.state = 'created';
      order.delivery.taskId = event.taskId;
      if (isNewerStatus(order.delivery.status, event.status)) {
        order.delivery.status = event.status;
        order.delivery.confirmed = event.confirmed;
        log(`order ${order.orderNumber}: delivery ${event.status}${event.confirmed ? ' (confirmed)' : ''}`);
      }
    },
    onError: (error, event) =>
      log(`webhook for task ${event?.taskId ?? '?'} failed: ${(error as Error).message}`),
  });

  /** Answers an error of the delivery service, or of the order form, with the right status. */
  function fail(res: Response, error: unknown, order?: Order): void {
    if (error instanceof OrderInputError) res.status(400).json({ error: error.message });
    else if (error instanceof InsufficientBalanceError) {
      res
        .status(402)
        .json({ error: 'the wallet balance is too low for this delivery: top up (GET /wallet)' });
    } else if (error instanceof TaskCreationOutcomeUnknownError) {
      // A task may or may not exist: POST /orders/:orderNumber/delivery looks the order number up first.
      res
        .status(202)
        .json({ ...(order ? view(order) : {}), error: 'delivery outcome unknown: try again later' });
    } else if (error instanceof RequestValidationError) res.status(400).json({ error: error.message });
    else if (error instanceof DeliveryError)
      res.status(502).json({ error: `delivery service: ${error.name}` });
    else throw error;
  }

  const app = express();
  // The webhook route reads its own body (bounded, with a deadline): no JSON parser in front of it.
  app.all('/webhooks/delivery', (req, res) => webhooks.node(req, res));

  app.post('/orders', express.json({ limit: '64kb' }), async (req, res) => {
    let order: Order | undefined;
    try {
      const placed = parseOrder(req.body);
      order = orders.add(placed); // a second click on the same order number finds the first order
      await deliverOrder(client, order);
      res.status(order === placed ? 201 : 200).json(view(order));
    } catch (error) {
      fail(res, error, order);
    }
  });

  app.post('/orders/:orderNumber/delivery', async (req, res) => {
    const order = orders.get(req.params.orderNumber);
    if (order === undefined) {
      res.status(404).json({ error: 'no such order' });
      return;
    }
    try {
      await deliverOrder(client, order);
      res.json(view(order));
    } catch (error) {
      fail(res, error, order);
    }
  });

  app.get('/orders/:orderNumber', (req, res) => {
    const order = orders.get(req.params.orderNumber);
    if (order === undefined) res.status(404).json({ error: 'no such order' });
    else res.json(view(order));
  });

  app.get('/wallet', async (_req, res) => {
    try {
      res.json(await checkWallet(client, walletSettings));
    } catch (error) {
      fail(res, error);
    }
  });

  app.post('/jobs/sync-tasks', async (_req, res) => {
    try {
      res.json(await syncAllTasks(client, orders));
    } catch (error) {
      fail(res, error);
    }
  });

  return {
    app,
    orders,
    webhooks,
    syncAllTasks: (signal) => syncAllTasks(client, orders, signal),
    checkWallet: () => checkWallet(client, walletSettings),
    close: async () => {
      await webhooks.idle();
      await webhooks.close();
    },
  };
}
