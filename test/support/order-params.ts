/** Test create params, free of vitest so worker processes can import them. */

/** A create request body with a delivery location in Salmiya. */
export function orderParams(orderNumber: string) {
  return {
    orderNumber,
    customerName: `Customer ${orderNumber}`,
    customerNumber: '+96550001234',
    deliveryLocation: {
      latitude: 29.3339,
      longitude: 48.0761,
      fullAddress: ['Block 10, Street 5', 'Salmiya'],
    },
  };
}
