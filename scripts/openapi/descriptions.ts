/**
 * The spec's wording for the OpenAPI document's schemas: a description of every component and of its
 * fields (the OpenAPI document's schemas, paths and webhook), and the rules the zod schemas check
 * that JSON Schema cannot express. The zod schemas give the structure; this gives the words. A described
 * field that does not exist fails the build (components.ts), so the two cannot drift apart silently.
 * @module
 */

/** The description of one schema and of some of its properties. */
export interface SchemaDescription {
  readonly description: string;
  readonly properties?: Readonly<Record<string, string>>;
}

const DATE_TIME = 'ISO 8601 date-time';

/** Fields of a task, in API responses and webhook bodies alike (OpenAPI schema `Task`). */
const TASK_FIELDS: Readonly<Record<string, string>> = {
  id: 'Task identifier.',
  sellerId: 'Seller identifier.',
  sellerName: 'Seller name.',
  orderNumber: "Seller's order number.",
  customerName: 'Customer name.',
  customerNumber: 'Customer contact number.',
  alternateCustomerNumber: 'Alternate customer contact number.',
  deliveryZone: 'Delivery zone.',
  additionalAddressDetail: 'Extra address detail.',
  collectCash: 'Cash is to be collected on delivery.',
  totalAmount: 'Amount to be collected, KWD as decimal text with up to 3 decimals ("12.500").',
  specialNotes: 'Notes for the delivery.',
  status:
    'Current status: one of TaskStatus. Other strings may appear (webhook bodies carry `inprogress`); receivers tolerate them.',
  retailpartner:
    "Flags an order from a particular retail partner (the interface's own field name holds that partner's brand; a neutral word is used here).",
  customPickup: 'A custom pickup was requested.',
  statusHistory: 'History of status changes, one entry per change.',
  createdAt: `Creation time, ${DATE_TIME}.`,
  updatedAt: `Last update time, ${DATE_TIME}.`,
  deliveryId: 'Identifier of the delivery.',
  driver: 'Assigned driver.',
  deliveryTime: `Scheduled delivery time, ${DATE_TIME}.`,
  completedTime: `Completion time, ${DATE_TIME}.`,
  sellerDetail: 'Seller details.',
  deliveryDispatched: 'The delivery has been dispatched.',
  pickupLocation: 'Pickup coordinates.',
  addressDetails: 'Detailed addresses.',
  travelDetail: 'Distance and time.',
  dispatchwebhookrequest:
    "Raw update data received from the dispatch provider (the field name holds that provider's brand); its inner fields are not documented.",
};

const POINT_FIELDS = {
  latitude: 'Latitude, decimal degrees (−90…90).',
  longitude: 'Longitude, decimal degrees (−180…180).',
  fullAddress: 'Address lines, one element per line.',
} as const;

/** Every component and query object of the document, by name. */
export const COMPONENT_DESCRIPTIONS: Readonly<Record<string, SchemaDescription>> = {
  TaskCreateParams: {
    description:
      'Body of POST /tasks . The spec marks no field required. Unknown fields are rejected (by the SDK before sending, by the mock with 400).',
    properties: {
      sellerId:
        'Seller identifier. Whether it must equal the x-seller-id header is not shown by the spec; the mock requires it (400 otherwise).',
      sellerName: 'Seller name.',
      orderNumber:
        'Order number. Strongly recommended: the API has no idempotency key, and the order number is what lets a create with an unknown outcome be looked up before any resend.',
      customerName: 'Customer name.',
      customerNumber: 'Customer contact number.',
      alternateCustomerNumber: 'Alternate contact number.',
      deliveryZone: 'Delivery zone.',
      additionalAddressDetail: 'Extra address detail.',
      collectCash: 'Cash to be collected on delivery.',
      totalAmount: 'Amount to be collected, KWD as decimal text with at most 3 decimals ("12.500").',
      specialNotes: 'Delivery notes.',
      customPickup: 'A custom pickup location is used.',
      pickupLocation: 'Pickup coordinates (used with customPickup true).',
      deliveryLocation: 'Where to deliver.',
      pickupName: 'Name of the pickup point.',
      pickupNumber: 'Contact number of the pickup point.',
      pickupNotes: 'Notes on the pickup.',
      selectedBranch: 'Branch to pick up from, a name from GET /tasks/branches; used with customPickup true.',
    },
  },
  DeliveryLocation: {
    description: 'The delivery point of a new task.',
    properties: POINT_FIELDS,
  },
  PickupLocation: {
    description:
      'A custom pickup point. The spec leaves its required fields and bounds open ("not shown"); the SDK and the mock require the coordinates and check their ranges.',
    properties: POINT_FIELDS,
  },
  EstimateParams: {
    description: 'Body of POST /tasks/estimate: both points required.',
    properties: { from: 'Start point (pickup).', to: 'End point (delivery).' },
  },
  EstimatePoint: {
    description: 'A point for an estimate, decimal degrees.',
    properties: { latitude: POINT_FIELDS.latitude, longitude: POINT_FIELDS.longitude },
  },
  WalletTopUpParams: {
    description: 'Body of POST /tasks/wallet-topup.',
    properties: { amount: 'Amount in KWD, at least 5.' },
  },
  Task: {
    description:
      'A delivery task as the service returns it (OpenAPI schema `Task`). Every field is optional; new fields may appear at any time and are kept.',
    properties: TASK_FIELDS,
  },
  TaskStatus: {
    description:
      'The nine task statuses the service lists. Responses may carry other strings; `inprogress` and `pickup_location_reached` are webhook event kinds only.',
  },
  StatusHistoryEntry: {
    description: 'One status change.',
    properties: {
      id: 'Entry identifier: present in API responses, absent in webhook bodies.',
      status: 'A status value (in webhook bodies also an event kind such as `inprogress`).',
      timestamp: `When the change happened, ${DATE_TIME}.`,
    },
  },
  Driver: {
    description: 'The assigned driver.',
    properties: {
      name: 'Driver name.',
      phone: 'Driver phone number.',
      trackingLink: 'URL of the live tracking page.',
      completed_at: `Completion time, ${DATE_TIME} (present in webhook payloads).`,
    },
  },
  SellerDetail: {
    description: "The seller's shop details.",
    properties: {
      shopName: 'Shop name.',
      phone: 'Shop phone number.',
      address: 'Shop address.',
      location: 'Shop location.',
    },
  },
  Coordinates: {
    description: 'A point in decimal degrees (the pickupLocation of a task in responses).',
    properties: { latitude: 'Latitude, decimal degrees.', longitude: 'Longitude, decimal degrees.' },
  },
  AddressDetails: {
    description: 'Detailed addresses of a task.',
    properties: { fromAddr: 'Pickup address.', toAddr: 'Delivery address.' },
  },
  AddressEntry: {
    description: 'One address: a display line and its structured parts.',
    properties: { address: 'The address as one line.', moreInfo: 'Structured parts of the address.' },
  },
  AddressParts: {
    description: 'Structured parts of an address.',
  },
  TravelDetail: {
    description:
      'Distance and travel time. Units are not shown by the spec; the mock sends kilometres and minutes.',
    properties: {
      totalDistance: 'Distance.',
      duration: 'Travel time.',
      durationInTraffic: 'Travel time in traffic.',
      hasTraffic: 'Traffic affects the trip.',
      estimatedDelayByTraffic: 'Delay caused by traffic.',
    },
  },
  TaskCreateResponse: {
    description: 'Answer of POST /tasks: the new task, wrapped as `{ data: { createTask: Task } }`.',
    properties: { data: 'The envelope; `createTask` holds the new task.' },
  },
  TaskListResponse: {
    description: 'One page of tasks; all five fields required.',
    properties: {
      tasks: "The page's tasks.",
      page: 'Current page, from 1.',
      limit: 'Items per page.',
      totalPages: 'Number of pages (0 when nothing matches).',
      total: 'Total number of matching tasks.',
    },
  },
  Estimate: {
    description: 'Answer of POST /tasks/estimate; both fields optional.',
    properties: { travelDetail: 'Distance and time between the points.', price: 'Delivery price in KWD.' },
  },
  Branch: {
    description: 'A pickup branch; `name` is the value for selectedBranch. Other fields are kept.',
    properties: { name: 'Branch name, the value for selectedBranch.', id: 'Branch identifier.' },
  },
  BranchListResponse: {
    description:
      'Answer of GET /tasks/branches. The spec does not show its shape: the mock sends `{ branches: [{ id, name, … }] }`; the SDK also reads a bare array, `{ data: [...] }` or an array under any other property, of objects with a `name` or of plain names, and reads any other JSON body as no branches (reported as schema drift, never an error).',
  },
  WalletBalance: {
    description: 'Answer of GET /tasks/wallet-balance.',
    properties: {
      walletAmount:
        'Balance in KWD. Meaningful for wallet accounts; invoice accounts have no balance check (the mock reports 0).',
    },
  },
  WalletTopUp: {
    description:
      'Answer of POST /tasks/wallet-topup: a payment link. Other fields are not shown by the spec and are kept.',
    properties: {
      paymentUrl:
        'Payment link to open in a browser; expires 24 hours after issue. The wallet is credited automatically when the payment completes.',
      amount: 'Amount to be credited, KWD (sent by the mock).',
      expiresAt: `When the link expires, ${DATE_TIME} (sent by the mock).`,
    },
  },
  WebhookTask: {
    description:
      'The body of a webhook: the full task, POSTed once per status change. `status` carries the event kind. Receivers ignore fields they do not recognise.',
    properties: {
      ...TASK_FIELDS,
      _id: 'Task identifier in the webhook body (the SDK falls back to `id`).',
      status:
        'The event kind, one per status change: `requested`, `accepted`, `inprogress`, `pickup_location_reached`, `pickedup`, `enroute`, `delivered`, `cancelled`, `rejected` or `failed` (the spec lists the seven from `accepted` to `cancelled`; every status change triggers one); other strings are tolerated.',
      alternateCustomerNumber: 'Alternate customer contact number; may be an empty string in a webhook body.',
      vehicleType: 'Vehicle type; its allowed values are not shown by the spec.',
      pickupName: 'Name of the pickup point.',
      pickupNumber: 'Contact number of the pickup point.',
      estimatedPrice: 'Estimated price, KWD as decimal text with 3 decimals ("1.250").',
      walletDeducted: 'The delivery fee was deducted from the wallet.',
      deliveryLocation: 'Delivery point, webhook form.',
      pickupLocation: 'Pickup point, webhook form.',
    },
  },
  WebhookDeliveryLocation: {
    description: 'The delivery point in a webhook body.',
    properties: {
      lat: 'Latitude, decimal degrees.',
      lng: 'Longitude, decimal degrees.',
      kwAddress: 'Kuwaiti address lines (block, street, building…), one element per line.',
      fullAddress: 'Address lines, one element per line.',
    },
  },
  WebhookPickupLocation: {
    description: 'The pickup point in a webhook body.',
    properties: {
      longitude: 'Longitude, decimal degrees.',
      latitude: 'Latitude, decimal degrees.',
      fullAddress: 'Address lines, one element per line.',
    },
  },
  ErrorBody: {
    description:
      'An error answer. The spec does not show the error format; this is the one the mock sends and the SDK reads first (it also reads `error`, `error.message`, `errors[0].message` or a text body).',
    properties: {
      message: 'What went wrong, for people. Never contains the API key or the seller id.',
      code: 'What went wrong, for programs: BAD_REQUEST, UNAUTHORIZED, INSUFFICIENT_BALANCE, NOT_FOUND, INVOICE_ACCOUNT, …',
    },
  },
  TaskListParams: {
    description: 'Every query parameter is optional.',
    properties: {
      limit: 'Items per page; at most 10.',
      page: 'Page number, from 1.',
      search: 'Search term filtering results.',
      sortBy:
        'Field to sort by. Allowed names are not shown by the spec; the mock knows createdAt, updatedAt, orderNumber, status and customerName, and lists newest first otherwise.',
      ignoreRegex:
        'When true the search term is not treated as a regular expression (the SDK sends true unless asked not to).',
      sortOrder: '1 ascending, -1 descending.',
    },
  },
};

/**
 * What the zod schemas check that JSON Schema cannot express (zod's `toJSONSchema` drops custom checks),
 * by where the check sits: component name plus JSON Pointer. Each is appended to that description.
 */
export const UNEXPRESSED_RULES: Readonly<Record<string, string>> = {
  TaskCreateParams:
    'selectedBranch only with customPickup true; every string well-formed (no unpaired UTF-16 surrogates). The mock answers 400 to a body that breaks either.',
  TaskListParams: 'every string well-formed (no unpaired UTF-16 surrogates).',
  'WalletTopUpParams/properties/amount': 'at most 3 decimals (the mock answers 400 otherwise).',
  'TaskCreateParams/properties/totalAmount':
    'at most 9007199254740.991 (MAX_KWD_AMOUNT, the safe range of fils).',
  'WebhookTask/properties/_id':
    'no control characters (U+0000–U+001F, U+007F–U+009F); the SDK rejects such a body.',
};
