/** The quotes of one MCP session. */

/** A point in decimal degrees. */
export interface Point {
  readonly latitude: number;
  readonly longitude: number;
}

/** One quote. */
export interface Quote {
  /** `est_…`, unguessable. */
  readonly id: string;
  readonly from: Point;
  readonly to: Point;
  /** The price the service gave, fils; `undefined` when it gave none. */
  readonly priceFils: number | undefined;
  /** When it was made, ms since the epoch. */
  readonly at: number;
}

/** Quotes a session keeps; past it the oldest is forgotten. */
export const MAX_QUOTES = 200;

/** Two points are the same when both coordinates are equal as numbers (JSON numbers round-trip exactly). */
export function samePoint(a: Point, b: Point): boolean {
  return a.latitude === b.latitude && a.longitude === b.longitude;
}

/** `29.3339,48.0761`. */
export function pointText(point: Point): string {
  return `${point.latitude},${point.longitude}`;
}

/** The quotes of one session, at most {@link MAX_QUOTES}. */
export class QuoteBook {
  readonly #quotes = new Map<string, Quote>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Records a quote and returns it with its new id. */
  add(from: Point, to: Point, priceFils: number | undefined): Quote {
    const quote: Quote = {
      id: `est_${globalThis.crypto.randomUUID()}`,
      from: { latitude: from.latitude, longitude: from.longitude },
      to: { latitude: to.latitude, longitude: to.longitude },
      priceFils,
      at: this.#now(),
    };
    this.#quotes.set(quote.id, quote);
    for (const id of this.#quotes.keys()) {
      if (this.#quotes.size <= MAX_QUOTES) break;
      this.#quotes.delete(id);
    }
    return quote;
  }

  /** The quote with this id, if this session made it and has not forgotten it. */
  get(id: string): Quote | undefined {
    return this.#quotes.get(id);
  }
}
