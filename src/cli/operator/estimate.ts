/**
 * `delivery-task estimate --from LAT,LNG --to LAT,LNG`: price, distance and travel time between two
 * points, without creating a task (OpenAPI `estimateTask`).
 * @module
 */
import { kwdCell, labelled, textCell } from '../format.js';
import { pointValue } from './args.js';
import type { OperatorCommandSpec } from './command.js';

/** `estimate`. */
export const estimate: OperatorCommandSpec = {
  words: ['estimate'],
  arguments: [],
  options: {
    from: { type: 'string', valueName: 'LAT,LNG', required: true, description: 'pickup point, decimal degrees' },
    to: { type: 'string', valueName: 'LAT,LNG', required: true, description: 'delivery point, decimal degrees' },
  },
  summary: 'price (KWD), distance and time between two points',
  details: [
    'Distance and durations are printed as the service sends them (the spec leaves their units open;',
    'the mock uses kilometres and minutes). --json: the estimate as the service sent it.',
  ],
  async run(context, input) {
    const from = pointValue(input, 'from');
    const to = pointValue(input, 'to');
    const result = await context.client.tasks.estimate({ from, to }, { signal: context.signal });
    if (context.output.json) {
      context.output.document(result);
      return;
    }
    const travel = result.travelDetail;
    const shown = (value: unknown) => (value === undefined ? undefined : textCell(value));
    const lines = labelled([
      ['price', kwdCell(result.price)],
      ['distance', shown(travel?.totalDistance)],
      ['duration', shown(travel?.duration)],
      ['in traffic', shown(travel?.durationInTraffic)],
      ['traffic delay', shown(travel?.estimatedDelayByTraffic)],
    ]);
    for (const line of lines) context.output.line(line);
  },
};
