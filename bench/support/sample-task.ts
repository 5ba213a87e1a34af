/**
 * A task as the service sends it, with every documented field set: the payload the benchmarks parse.
 * @module
 */

/** Task number `index` (ids and order numbers differ by index). */
export function sampleTask(index: number): Record<string, unknown> {
  return {
    id: `6b023c326d6f636b${String(index).padStart(8, '0')}`,
    sellerId: 'seller-1',
    sellerName: 'Shop',
    orderNumber: `ORD-${index}`,
    customerName: 'Fatima Al-Sabah',
    customerNumber: '+96550000001',
    alternateCustomerNumber: '+96550000002',
    deliveryZone: 'Salmiya',
    additionalAddressDetail: 'Floor 3',
    collectCash: true,
    totalAmount: '12.500',
    specialNotes: 'Ring twice',
    status: 'enroute',
    retailpartner: false,
    customPickup: false,
    statusHistory: [
      { id: 'h1', status: 'pending', timestamp: '2026-11-21T09:00:00.000Z' },
      { id: 'h2', status: 'enroute', timestamp: '2026-11-21T09:30:00.000Z' },
    ],
    createdAt: '2026-11-21T09:00:00.000Z',
    updatedAt: '2026-11-21T09:30:00.000Z',
    deliveryId: 'DLV-000001',
    driver: { name: 'Ahmad', phone: '+96560000002', trackingLink: 'https://track.test/1' },
    deliveryTime: '2026-11-21T10:00:00.000Z',
    sellerDetail: { shopName: 'Shop', phone: '+96522222222', address: 'Kuwait City', location: 'KW' },
    deliveryDispatched: true,
    pickupLocation: { latitude: 29.3759, longitude: 47.9774 },
    addressDetails: {
      fromAddr: { address: 'Kuwait City', moreInfo: { country: 'Kuwait', locality: 'Kuwait City' } },
      toAddr: { address: 'Salmiya', moreInfo: { country: 'Kuwait', locality: 'Salmiya' } },
    },
    travelDetail: {
      totalDistance: 10.645,
      duration: 21.3,
      durationInTraffic: 21.3,
      hasTraffic: false,
      estimatedDelayByTraffic: 0,
    },
  };
}
