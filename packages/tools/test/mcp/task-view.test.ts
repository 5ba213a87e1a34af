/** What a task shows the model: allowlisted fields, no seller id, bounded text, masked phones. */
import { expect, it } from 'vitest';
import { MAX_FIELD_CHARS, maskPhone, taskView } from '../../src/mcp/task-view.js';

const options = { revealCustomerPhones: false };

it('masks every digit of a phone number but the last three', () => {
  expect(maskPhone('+965 5000-1234')).toBe('+*** ****-*234');
  expect(maskPhone('12')).toBe('12');
});

it('keeps the fields an agent needs and drops the seller id, the raw dispatch payload and unknown fields', () => {
  const view = taskView(
    {
      id: 't1',
      sellerId: 'secret-seller',
      orderNumber: 'ORD-1',
      status: 'pending',
      customerNumber: '+96550001234',
      alternateCustomerNumber: '+96550009999',
      estimatedPrice: '1.815',
      totalAmount: '12.500',
      dispatchwebhookrequest: { phone: '+96511112222' },
      paymentUrl: 'https://pay.example/token123456',
      addressDetails: { toAddr: { address: 'Block 10, call 99887766' }, fromAddr: { address: 'Shop' } },
      driver: { name: 'Ali', phone: '+96560000000' },
      travelDetail: { totalDistance: 10.6, hasTraffic: true },
      statusHistory: [{ id: 'h1', status: 'pending', timestamp: '2026-11-24T10:00:00Z' }],
    } as never,
    options,
  );
  expect(view).toEqual({
    id: 't1',
    orderNumber: 'ORD-1',
    status: 'pending',
    customerNumber: '+********234',
    alternateCustomerNumber: '+********999',
    feeKwd: '1.815',
    totalAmountKwd: '12.500',
    deliveryAddress: 'Block 10, call *****766',
    pickupAddress: 'Shop',
    driver: { name: 'Ali', phone: '+96560000000' },
    travelDetail: { totalDistance: 10.6 },
    statusHistory: [{ status: 'pending', timestamp: '2026-11-24T10:00:00Z' }],
  });
});

it('leaves out fields of the wrong type and cuts long text', () => {
  const view = taskView({ id: 7, status: { evil: true }, specialNotes: 'x'.repeat(5000) } as never, options);
  expect(view.id).toBeUndefined();
  expect(view.status).toBeUndefined();
  expect(view.specialNotes).toHaveLength(MAX_FIELD_CHARS);
});

it('shows phone numbers in full when asked', () => {
  expect(taskView({ customerNumber: '+96550001234' }, { revealCustomerPhones: true }).customerNumber).toBe(
    '+96550001234',
  );
});
