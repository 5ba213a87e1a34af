/**
 * `delivery-task estimate --from LAT,LNG --to LAT,LNG`: price, distance and travel time between two
 * points, without creating a task (OpenAPI `estimateTask`).
 */
import { kwdCell, labelled, textCell } from '../format.js';
import { pointValue } from './args.js';
import type { OperatorCommandSpec } from './command.js';

/** What `estimate` prints beside a number whose unit the service does not state. */
const NO_UNIT = 'unit not stated by the service';

/** `estimate`. */
export const estimate: OperatorCommandSpec = {
  words: ['estimate'],
  arguments: [],
  options: {
    from: {
      type: 'string',
      valueName: 'LAT,LNG',
      required: true,
      description: 'pickup point, decimal degrees',
    },
    to: {
      type: 'string',
      valueName: 'LAT,LNG',
      required: true,
      description: 'delivery point, decimal degrees',
    },
  },
  summary: 'price (KWD), distance and time between two points',
  details: [
    'Distance and durations are printed as the service sends them, each with its field name: the',
    "service's documentation states no unit for them (the mock uses kilometres and minutes).",
    '--json: the estimate as the service sent it.',
  ],
  async run(context, input) {
    const from = pointValue(input, 'from');
    const to = pointValue(input, 'to');
    const result = await context.client.tasks.estimate({ from, to }, { signal: context.signal });
    if (context.output.json) {
      context.output.document(result);
      return;
    }
    const travel = context.output.redact(result).travelDetail;
    // The service states no unit for these numbers: the raw value with its field's name, never a guessed
    // unit.
    const shown = (value: unknown, field: string) =>
      value === undefined ? undefined : `${textCell(value)} (${field}; ${NO_UNIT})`;
    const lines = labelled([
      ['price', kwdCell(result.price)],
      ['distance', shown(travel?.totalDistance, 'totalDistance')],
      ['duration', shown(travel?.duration, 'duration')],
      ['in traffic', shown(travel?.durationInTraffic, 'durationInTraffic')],
      ['traffic delay', shown(travel?.estimatedDelayByTraffic, 'estimatedDelayByTraffic')],
    ]);
    for (const line of lines) context.output.line(line);
  },
};
