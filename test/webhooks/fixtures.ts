/**
 * Realistic webhook bodies, built from spec § "Events" and § "Extra fields seen in the webhook task
 * payload", and a sender that POSTs them like the service does.
 */

/** Every status change of a delivery, as webhooks carry them (spec § Events, design transitions). */
export const DELIVERY_EVENTS = [
  'requested',
  'accepted',
  'inprogress',
  'pickup_location_reached',
  'pickedup',
  'enroute',
  'delivered',
] as const;

/** The webhook form of a task in status `status`: every documented field, history without ids. */
export function webhookBody(
  taskId: string,
  status: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const reached = (DELIVERY_EVENTS as readonly string[]).indexOf(status);
  const history: { status: string; timestamp: string }[] = DELIVERY_EVENTS.slice(
    0,
    reached < 0 ? 1 : reached + 1,
  ).map((entry, index) => ({
    status: entry,
    timestamp: new Date(Date.UTC(2026, 10, 21, 9, index)).toISOString(),
  }));
  if (reached < 0) history.push({ status, timestamp: '2026-11-21T09:30:00.000Z' });
  return {
    _id: taskId,
    sellerId: 'seller-webhook-test',
    sellerName: 'Gulf Bakery',
    orderNumber: `ORD-${taskId}`,
    customerName: 'Fatima Al-Sabah',
    customerNumber: '+96550000001',
    alternateCustomerNumber: '',
    deliveryZone: 'Salmiya',
    additionalAddressDetail: 'Floor 3, flat 12',
    collectCash: true,
    totalAmount: '12.500',
    specialNotes: 'Ring twice',
    status,
    retailpartner: false,
    customPickup: false,
    statusHistory: history,
    createdAt: '2026-11-21T09:00:00.000Z',
    updatedAt: '2026-11-21T09:30:00.000Z',
    deliveryId: `DLV-${taskId}`,
    driver: {
      name: 'Ahmad',
      phone: '+96560000002',
      trackingLink: 'https://track.example.test/abc',
      ...(status === 'delivered' ? { completed_at: '2026-11-21T09:45:00.000Z' } : {}),
    },
    deliveryTime: '2026-11-21T10:00:00.000Z',
    sellerDetail: {
      shopName: 'Gulf Bakery',
      phone: '+96522200000',
      address: 'Kuwait City',
      location: 'Block 1',
    },
    deliveryDispatched: true,
    pickupLocation: {
      longitude: 47.9774,
      latitude: 29.3759,
      fullAddress: ['Kuwait City', 'Block 1, Street 2'],
    },
    deliveryLocation: {
      lat: 29.3397,
      lng: 48.0748,
      kwAddress: ['Block 10', 'Street 5', 'Building 12'],
      fullAddress: ['Salmiya, Block 10, Street 5, Building 12'],
    },
    addressDetails: {
      fromAddr: { address: 'Kuwait City', moreInfo: { locality: 'Kuwait City', country: 'Kuwait' } },
      toAddr: { address: 'Salmiya', moreInfo: { neighborhood: 'Block 10', country: 'Kuwait' } },
    },
    travelDetail: {
      totalDistance: 9.2,
      duration: 18,
      durationInTraffic: 22,
      hasTraffic: true,
      estimatedDelayByTraffic: 4,
    },
    vehicleType: 'bike',
    pickupName: 'Gulf Bakery Main',
    pickupNumber: '+96522200000',
    estimatedPrice: '1.250',
    walletDeducted: true,
    ...overrides,
  };
}

/** POSTs a webhook like the service: JSON body, `Content-Type: application/json`. */
export function postWebhook(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

/** Hands `handler.fetch` the webhook of (task, status) as the service sends it. */
export function fetchWebhook(
  handler: { fetch(request: Request): Promise<Response> },
  taskId: string,
  status: string,
): Promise<Response> {
  return handler.fetch(
    new Request('http://receiver.test/webhooks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(webhookBody(taskId, status)),
    }),
  );
}

/** A promise with its resolve function, to hold `onEvent` until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
