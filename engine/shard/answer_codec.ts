// The encoding of answers on a result ring: little-endian binary written straight from the
// engine's event rows, one layout per event kind, so the worker builds no object per event and
// runs no generic serializer (msgpack of per-event arrays cost the worker ~15 % of its time and
// the event objects another ~10 %). The front end decodes an answer into plain event objects.
//
// An answer: u32 requestId, f64 timeMs, i32 market, str16 error (utf-8), u32 credits
// [str address, f64 micros], u32 redemptions [f64 seq, str account, i32 market, u8 winner,
// f64 yes, f64 no], u32 events [u8 kind, then the kind's fields], u32 balances [f64 seq, str
// account, i32 market, u8 outcome + 1 (0: collateral), f64 free, f64 reserved]. Every count is
// 32-bit: a resolution pays up to POSITIONS_LIMIT holders, and a taker fills up to
// ORDER_SLOTS_LIMIT makers. An answer of any size travels on the ring in fragments
// (answer_stream.ts). Strings (ids, addresses) are u8-length latin1; the edge and the frame codec
// keep them ASCII. BALANCE events (about half of all events) go in a section of their own and are
// decoded into `balances`, not `events`: the account read model (http/trading/account_data.ts)
// is their only reader, and every other reader of the events (the market read model, the live
// channels, the order routes) would only step over them.
import { ByteReader, ByteWriter } from '../bytes.js';
import type { Command } from '../command.js';
import type { BalanceEvent, EngineEvent } from '../events/event_objects.js';
import { ACCEPTED_RESTS, EventKind, Field, MARKET_ACCEPTING, MARKET_RESOLVED, Text, type EventBuffer, type FillKind } from '../events/events.js';
import type { BookSide } from '../market/book.js';
import type { CancelReason } from '../orders/order_status.js';
import { Reject } from '../events/reject.js';
import type { FrameOutcome, FrameResult, Redemption } from './core.js';

const INITIAL_BYTES = 1 << 16;

/** Appends the answers of one batch into one growing buffer; `reset` when they are written out. */
export class AnswerWriter extends ByteWriter {
  constructor() {
    super(INITIAL_BYTES);
  }

  /**
   * Appends the answer of a frame whose events are rows [0, events.count) of `events` (none when
   * undefined); returns its offset (its length is `end() - offset`).
   */
  write(outcome: FrameOutcome, events: EventBuffer | undefined): number {
    const start = this.at;
    this.writeOutcome(outcome);
    if (events === undefined) {
      this.u32(0);
      this.u32(0);
      return start;
    }
    const balances = countBalances(events);
    this.u32(events.count - balances);
    for (let row = 0; row < events.count; row++) this.writeEvent(events, row);
    this.u32(balances);
    if (balances > 0) for (let row = 0; row < events.count; row++) this.writeBalance(events, row);
    return start;
  }

  /** Appends the answer to a PlaceOrder the runtime refused as a duplicate before the engine saw it. */
  writeDuplicate(outcome: FrameOutcome, command: Command): number {
    const start = this.at;
    this.writeOutcome(outcome);
    this.u32(1);
    this.u8(EventKind.ORDER_REJECTED);
    this.f64(0);
    this.str(command.orderId);
    this.str(command.account);
    this.orderTail(command.market, command.outcome, command.side, command.priceUnits, command.sizeMicros);
    this.u8(command.orderType);
    this.u8(Reject.DUPLICATE_ORDER);
    this.u32(0);
    return start;
  }

  private writeOutcome(outcome: FrameOutcome): void {
    this.u32(outcome.requestId);
    this.f64(outcome.timeMs);
    this.i32(outcome.market);
    this.str(outcome.marketKey);
    this.str(outcome.fundedAccount);
    this.f64(outcome.fundedMicros);
    this.text16(outcome.error);
    this.u32(outcome.credits.length);
    for (const [address, micros] of outcome.credits) {
      this.str(address);
      this.f64(micros);
    }
    this.u32(outcome.redemptions.length);
    for (const { seq, account, market, winner, sharesMicros } of outcome.redemptions) {
      this.f64(seq);
      this.str(account);
      this.i32(market);
      this.u8(winner);
      this.f64(sharesMicros[0]);
      this.f64(sharesMicros[1]);
    }
  }

  private writeEvent(events: EventBuffer, row: number): void {
    const kind = events.kindOf(row);
    if (kind === EventKind.BALANCE) return;
    const get = (field: Field): number => events.get(row, field);
    this.u8(kind);
    this.f64(get(Field.seq));
    switch (kind) {
      case EventKind.ORDER_ACCEPTED:
        this.orderHead(events, row);
        this.u8(get(Field.orderType));
        this.f64(get(Field.matchedMicros));
        this.f64(get(Field.remainingMicros));
        this.f64(get(Field.expirationMs));
        this.u8(get(Field.flags));
        return;
      case EventKind.ORDER_REJECTED:
        this.orderHead(events, row);
        this.u8(get(Field.orderType));
        this.u8(get(Field.code));
        return;
      case EventKind.ORDER_UPDATED: case EventKind.ORDER_CANCELLED:
        this.orderHead(events, row);
        this.u8(get(Field.orderType));
        this.f64(get(Field.matchedMicros));
        this.f64(get(Field.remainingMicros));
        this.f64(get(Field.createdAtMs));
        this.f64(get(Field.expirationMs));
        this.u8(get(Field.code));
        return;
      case EventKind.CANCEL_REJECTED:
        this.str(events.text(row, Text.orderId));
        this.str(events.text(row, Text.account));
        this.u8(get(Field.code));
        return;
      case EventKind.FILL:
        this.i32(get(Field.fillIndex));
        this.orderHead(events, row);
        this.f64(get(Field.feeMicros));
        this.u8(get(Field.code));
        this.str(events.text(row, Text.makerOrderId));
        this.str(events.text(row, Text.makerAccount));
        this.u8(get(Field.makerOutcome));
        this.u8(get(Field.makerSide));
        this.i32(get(Field.makerPriceUnits));
        return;
      case EventKind.LEVEL:
        this.i32(get(Field.market));
        this.u8(get(Field.side));
        this.i32(get(Field.priceUnits));
        this.f64(get(Field.sizeMicros));
        return;
      case EventKind.MARKET:
        this.i32(get(Field.market));
        this.i32(get(Field.tickUnits));
        this.f64(get(Field.sizeMicros));
        this.i32(get(Field.feeBps));
        this.u8(get(Field.flags));
        this.i32(get(Field.outcome));
        return;
      case EventKind.COMMAND_REJECTED:
        this.i32(get(Field.market));
        this.str(events.text(row, Text.account));
        this.u8(get(Field.code));
        return;
      default:
        throw new Error(`answer: event kind ${kind as number} has no encoding`);
    }
  }

  /** A BALANCE row (nothing for the other kinds). */
  private writeBalance(events: EventBuffer, row: number): void {
    if (events.kindOf(row) !== EventKind.BALANCE) return;
    this.f64(events.get(row, Field.seq));
    this.str(events.text(row, Text.account));
    this.i32(events.get(row, Field.market));
    this.u8(events.get(row, Field.outcome) + 1);
    this.f64(events.get(row, Field.freeMicros));
    this.f64(events.get(row, Field.reservedMicros));
  }

  /** Order id, account, market, token, side, price and size of an order row. */
  private orderHead(events: EventBuffer, row: number): void {
    this.str(events.text(row, Text.orderId));
    this.str(events.text(row, Text.account));
    this.orderTail(
      events.get(row, Field.market), events.get(row, Field.outcome), events.get(row, Field.side),
      events.get(row, Field.priceUnits), events.get(row, Field.sizeMicros),
    );
  }

  private orderTail(market: number, outcome: number, side: number, priceUnits: number, sizeMicros: number): void {
    this.i32(market);
    this.u8(outcome);
    this.u8(side);
    this.i32(priceUnits);
    this.f64(sizeMicros);
  }
}

/** BALANCE rows, which the answer carries in their own section. */
function countBalances(events: EventBuffer): number {
  let count = 0;
  for (let row = 0; row < events.count; row++) if (events.kindOf(row) === EventKind.BALANCE) count++;
  return count;
}

interface OrderHead {
  orderId: string;
  account: string;
  market: number;
  outcome: number;
  side: number;
  priceUnits: number;
  sizeMicros: number;
}

/** Reads answers (one thread, one ring). */
export class AnswerDecoder extends ByteReader {
  private readonly head: OrderHead = { orderId: '', account: '', market: 0, outcome: 0, side: 0, priceUnits: 0, sizeMicros: 0 };

  /** The answer at [offset, offset + length) of `bytes` (a Buffer over the ring, or a copy). */
  decode(bytes: Buffer, offset: number, length: number): FrameResult {
    this.start(bytes, offset);
    const end = offset + length;
    const requestId = this.u32();
    const timeMs = this.f64();
    const market = this.i32();
    const marketKey = this.str();
    const fundedAccount = this.str();
    const fundedMicros = this.f64();
    const error = this.text16();
    const credits: [string, number][] = [];
    for (let count = this.u32(); count > 0; count--) credits.push([this.str(), this.f64()]);
    const redemptions: Redemption[] = [];
    for (let count = this.u32(); count > 0; count--) {
      const seq = this.f64();
      const account = this.str();
      const redeemed = this.i32();
      const winner = this.u8();
      const yes = this.f64();
      redemptions.push({ seq, account, market: redeemed, winner, sharesMicros: [yes, this.f64()] });
    }
    const events: EngineEvent[] = [];
    for (let count = this.u32(); count > 0; count--) events.push(this.event());
    const balances: BalanceEvent[] = [];
    for (let count = this.u32(); count > 0; count--) balances.push(this.balance());
    if (this.at !== end) throw new Error(`answer of ${length} bytes decoded ${this.at - offset}`);
    return { requestId, timeMs, error, market, marketKey, fundedAccount, fundedMicros, credits, events, balances, redemptions };
  }

  private balance(): BalanceEvent {
    const seq = this.f64();
    const account = this.str();
    const market = this.i32();
    const outcome = this.u8() - 1;
    const freeMicros = this.f64();
    return { kind: 'BALANCE', seq, account, market, outcome, freeMicros, reservedMicros: this.f64() };
  }

  private event(): EngineEvent {
    const kind = this.u8() as EventKind;
    const seq = this.f64();
    switch (kind) {
      case EventKind.ORDER_ACCEPTED: {
        const { orderId, account, market, outcome, side, priceUnits, sizeMicros } = this.orderHead();
        const orderType = this.u8();
        const matchedMicros = this.f64();
        const remainingMicros = this.f64();
        const expirationMs = this.f64();
        const rests = (this.u8() & ACCEPTED_RESTS) !== 0;
        return {
          kind: 'ORDER_ACCEPTED', seq, orderId, account, market, outcome, side, priceUnits, sizeMicros, orderType, matchedMicros,
          remainingMicros, expirationMs, rests,
        };
      }
      case EventKind.ORDER_REJECTED: {
        const { orderId, account, market, outcome, side, priceUnits, sizeMicros } = this.orderHead();
        const orderType = this.u8();
        const reason = this.u8() as Reject;
        return { kind: 'ORDER_REJECTED', seq, orderId, account, market, outcome, side, priceUnits, sizeMicros, orderType, reason };
      }
      case EventKind.ORDER_UPDATED: case EventKind.ORDER_CANCELLED: {
        const { orderId, account, market, outcome, side, priceUnits, sizeMicros } = this.orderHead();
        const orderType = this.u8();
        const matchedMicros = this.f64();
        const remainingMicros = this.f64();
        const createdAtMs = this.f64();
        const expirationMs = this.f64();
        const code = this.u8();
        if (kind === EventKind.ORDER_UPDATED) {
          return {
            kind: 'ORDER_UPDATED', seq, orderId, account, market, outcome, side, priceUnits, sizeMicros, orderType,
            matchedMicros, remainingMicros, createdAtMs, expirationMs,
          };
        }
        return {
          kind: 'ORDER_CANCELLED', seq, orderId, account, market, outcome, side, priceUnits, sizeMicros, orderType,
          matchedMicros, remainingMicros, createdAtMs, expirationMs, reason: code as CancelReason,
        };
      }
      case EventKind.CANCEL_REJECTED: {
        const orderId = this.str();
        const account = this.str();
        return { kind: 'CANCEL_REJECTED', seq, orderId, account, reason: this.u8() as Reject };
      }
      case EventKind.FILL: {
        const fillIndex = this.i32();
        const taker = this.orderHead();
        const { market, sizeMicros } = taker;
        const takerFeeMicros = this.f64();
        const fillKind = this.u8() as FillKind;
        const makerOrderId = this.str();
        const makerAccount = this.str();
        const makerOutcome = this.u8();
        const makerSide = this.u8();
        const makerPriceUnits = this.i32();
        return {
          kind: 'FILL', seq, fillIndex, market, takerOrderId: taker.orderId, takerAccount: taker.account,
          takerOutcome: taker.outcome, takerSide: taker.side, takerPriceUnits: taker.priceUnits,
          makerOrderId, makerAccount, makerOutcome, makerSide, makerPriceUnits, sizeMicros, takerFeeMicros, fillKind,
        };
      }
      case EventKind.LEVEL: {
        const market = this.i32();
        const side = this.u8() as BookSide;
        const priceUnits = this.i32();
        return { kind: 'LEVEL', seq, market, side, priceUnits, sizeMicros: this.f64() };
      }
      case EventKind.MARKET: {
        const market = this.i32();
        const tickUnits = this.i32();
        const minSizeMicros = this.f64();
        const feeBps = this.i32();
        const flags = this.u8();
        const winner = this.i32();
        return {
          kind: 'MARKET', seq, market, tickUnits, minSizeMicros, feeBps, accepting: (flags & MARKET_ACCEPTING) !== 0,
          resolved: (flags & MARKET_RESOLVED) !== 0, winner,
        };
      }
      case EventKind.COMMAND_REJECTED: {
        const market = this.i32();
        const account = this.str();
        return { kind: 'COMMAND_REJECTED', seq, market, account, reason: this.u8() as Reject };
      }
      default:
        throw new Error(`answer event of unknown kind ${kind as number}`);
    }
  }

  /** What the writer's orderHead wrote, into one reused object (read it before the next call). */
  private orderHead(): OrderHead {
    const head = this.head;
    head.orderId = this.str();
    head.account = this.str();
    head.market = this.i32();
    head.outcome = this.u8();
    head.side = this.u8();
    head.priceUnits = this.i32();
    head.sizeMicros = this.f64();
    return head;
  }
}
