// Events as plain objects: what tests compare, what the reference engine produces, and what
// persistence and debugging read when allocation does not matter. The hot path never builds
// these; it writes rows into the EventBuffer, and eventsToObjects turns rows into objects.
import { unreachable } from '../command.js';
import {
  ACCEPTED_RESTS, EventKind, Field, MARKET_ACCEPTING, MARKET_RESOLVED, Text, type EventBuffer, type FillKind,
} from './events.js';
import type { BookSide } from '../market/book.js';
import type { CancelReason } from '../orders/order_status.js';
import type { Reject } from './reject.js';

interface OrderFields {
  readonly seq: number;
  readonly orderId: string;
  readonly account: string;
  readonly market: number;
  readonly outcome: number;
  readonly side: number;
  readonly priceUnits: number;
  readonly sizeMicros: number;
}

export interface OrderAcceptedEvent extends OrderFields {
  readonly kind: 'ORDER_ACCEPTED';
  readonly orderType: number;
  readonly matchedMicros: number;
  readonly remainingMicros: number;
  /** 0 unless GTD. */
  readonly expirationMs: number;
  readonly rests: boolean;
}

export interface OrderRejectedEvent extends OrderFields {
  readonly kind: 'ORDER_REJECTED';
  readonly orderType: number;
  readonly reason: Reject;
}

/** What an event about a placed order's progress carries besides its fields. */
interface ProgressFields extends OrderFields {
  readonly orderType: number;
  readonly matchedMicros: number;
  readonly remainingMicros: number;
  readonly createdAtMs: number;
  readonly expirationMs: number;
}

export interface OrderUpdatedEvent extends ProgressFields {
  readonly kind: 'ORDER_UPDATED';
}

export interface OrderCancelledEvent extends ProgressFields {
  readonly kind: 'ORDER_CANCELLED';
  readonly reason: CancelReason;
}

export interface CancelRejectedEvent {
  readonly kind: 'CANCEL_REJECTED';
  readonly seq: number;
  readonly orderId: string;
  readonly account: string;
  readonly reason: Reject;
}

export interface FillEvent {
  readonly kind: 'FILL';
  readonly seq: number;
  readonly fillIndex: number;
  readonly market: number;
  readonly takerOrderId: string;
  readonly takerAccount: string;
  readonly takerOutcome: number;
  readonly takerSide: number;
  readonly takerPriceUnits: number;
  readonly makerOrderId: string;
  readonly makerAccount: string;
  readonly makerOutcome: number;
  readonly makerSide: number;
  readonly makerPriceUnits: number;
  readonly sizeMicros: number;
  readonly takerFeeMicros: number;
  readonly fillKind: FillKind;
}

export interface LevelEvent {
  readonly kind: 'LEVEL';
  readonly seq: number;
  readonly market: number;
  readonly side: BookSide;
  readonly priceUnits: number;
  readonly sizeMicros: number;
}

export interface BalanceEvent {
  readonly kind: 'BALANCE';
  readonly seq: number;
  readonly account: string;
  /** -1 with outcome -1 for collateral. */
  readonly market: number;
  readonly outcome: number;
  readonly freeMicros: number;
  readonly reservedMicros: number;
}

export interface MarketEvent {
  readonly kind: 'MARKET';
  readonly seq: number;
  readonly market: number;
  readonly tickUnits: number;
  readonly minSizeMicros: number;
  readonly feeBps: number;
  readonly accepting: boolean;
  readonly resolved: boolean;
  readonly winner: number;
}

export interface CommandRejectedEvent {
  readonly kind: 'COMMAND_REJECTED';
  readonly seq: number;
  readonly market: number;
  readonly account: string;
  readonly reason: Reject;
}

export type EngineEvent =
  | OrderAcceptedEvent | OrderRejectedEvent | OrderUpdatedEvent | OrderCancelledEvent
  | CancelRejectedEvent | FillEvent | LevelEvent | BalanceEvent | MarketEvent | CommandRejectedEvent;

/** Rows [from, to) of the buffer as plain objects. */
export function eventsToObjects(buffer: EventBuffer, from = 0, to = buffer.count): EngineEvent[] {
  const events: EngineEvent[] = [];
  for (let row = from; row < to; row += 1) events.push(eventAt(buffer, row));
  return events;
}

export function eventAt(buffer: EventBuffer, row: number): EngineEvent {
  const kind = buffer.kindOf(row);
  const get = (field: Field): number => buffer.get(row, field);
  const text = (field: Text): string => buffer.text(row, field);
  // Object literals with every field (no spreads), so each kind's objects share one shape.
  switch (kind) {
    case EventKind.ORDER_ACCEPTED:
      return {
        kind: 'ORDER_ACCEPTED', seq: get(Field.seq), orderId: text(Text.orderId), account: text(Text.account),
        market: get(Field.market), outcome: get(Field.outcome), side: get(Field.side), priceUnits: get(Field.priceUnits),
        sizeMicros: get(Field.sizeMicros), orderType: get(Field.orderType), matchedMicros: get(Field.matchedMicros),
        remainingMicros: get(Field.remainingMicros), expirationMs: get(Field.expirationMs),
        rests: (get(Field.flags) & ACCEPTED_RESTS) !== 0,
      };
    case EventKind.ORDER_REJECTED:
      return {
        kind: 'ORDER_REJECTED', seq: get(Field.seq), orderId: text(Text.orderId), account: text(Text.account),
        market: get(Field.market), outcome: get(Field.outcome), side: get(Field.side), priceUnits: get(Field.priceUnits),
        sizeMicros: get(Field.sizeMicros), orderType: get(Field.orderType), reason: get(Field.code) as Reject,
      };
    case EventKind.ORDER_UPDATED:
      return {
        kind: 'ORDER_UPDATED', seq: get(Field.seq), orderId: text(Text.orderId), account: text(Text.account),
        market: get(Field.market), outcome: get(Field.outcome), side: get(Field.side), priceUnits: get(Field.priceUnits),
        sizeMicros: get(Field.sizeMicros), orderType: get(Field.orderType), matchedMicros: get(Field.matchedMicros),
        remainingMicros: get(Field.remainingMicros), createdAtMs: get(Field.createdAtMs), expirationMs: get(Field.expirationMs),
      };
    case EventKind.ORDER_CANCELLED:
      return {
        kind: 'ORDER_CANCELLED', seq: get(Field.seq), orderId: text(Text.orderId), account: text(Text.account),
        market: get(Field.market), outcome: get(Field.outcome), side: get(Field.side), priceUnits: get(Field.priceUnits),
        sizeMicros: get(Field.sizeMicros), orderType: get(Field.orderType), matchedMicros: get(Field.matchedMicros),
        remainingMicros: get(Field.remainingMicros), createdAtMs: get(Field.createdAtMs), expirationMs: get(Field.expirationMs),
        reason: get(Field.code) as CancelReason,
      };
    case EventKind.CANCEL_REJECTED:
      return {
        kind: 'CANCEL_REJECTED', seq: get(Field.seq), orderId: text(Text.orderId), account: text(Text.account),
        reason: get(Field.code) as Reject,
      };
    case EventKind.FILL: return fillAt(buffer, row);
    case EventKind.LEVEL:
      return {
        kind: 'LEVEL', seq: get(Field.seq), market: get(Field.market), side: get(Field.side) as BookSide,
        priceUnits: get(Field.priceUnits), sizeMicros: get(Field.sizeMicros),
      };
    case EventKind.BALANCE:
      return {
        kind: 'BALANCE', seq: get(Field.seq), account: text(Text.account), market: get(Field.market),
        outcome: get(Field.outcome), freeMicros: get(Field.freeMicros), reservedMicros: get(Field.reservedMicros),
      };
    case EventKind.MARKET: return marketAt(buffer, row);
    case EventKind.COMMAND_REJECTED:
      return {
        kind: 'COMMAND_REJECTED', seq: get(Field.seq), market: get(Field.market), account: text(Text.account),
        reason: get(Field.code) as Reject,
      };
    default: return unreachable(kind);
  }
}

/** A FILL row as an object (an object literal with every field, so fills share one shape). */
export function fillAt(buffer: EventBuffer, row: number): FillEvent {
  return {
    kind: 'FILL', seq: buffer.get(row, Field.seq), fillIndex: buffer.get(row, Field.fillIndex), market: buffer.get(row, Field.market),
    takerOrderId: buffer.text(row, Text.orderId), takerAccount: buffer.text(row, Text.account),
    takerOutcome: buffer.get(row, Field.outcome), takerSide: buffer.get(row, Field.side), takerPriceUnits: buffer.get(row, Field.priceUnits),
    makerOrderId: buffer.text(row, Text.makerOrderId), makerAccount: buffer.text(row, Text.makerAccount),
    makerOutcome: buffer.get(row, Field.makerOutcome), makerSide: buffer.get(row, Field.makerSide),
    makerPriceUnits: buffer.get(row, Field.makerPriceUnits), sizeMicros: buffer.get(row, Field.sizeMicros),
    takerFeeMicros: buffer.get(row, Field.feeMicros), fillKind: buffer.get(row, Field.code) as FillKind,
  };
}

function marketAt(buffer: EventBuffer, row: number): MarketEvent {
  const flags = buffer.get(row, Field.flags);
  return {
    kind: 'MARKET', seq: buffer.get(row, Field.seq), market: buffer.get(row, Field.market), tickUnits: buffer.get(row, Field.tickUnits),
    minSizeMicros: buffer.get(row, Field.sizeMicros), feeBps: buffer.get(row, Field.feeBps),
    accepting: (flags & MARKET_ACCEPTING) !== 0, resolved: (flags & MARKET_RESOLVED) !== 0,
    winner: buffer.get(row, Field.outcome),
  };
}
