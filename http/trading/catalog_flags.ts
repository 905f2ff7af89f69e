// The catalog's trading flags (acceptingOrders, closed) follow the engine. The admin routes write
// the engine first and the catalog second, so a crash between the two leaves the engine ahead:
// a market the engine has resolved (or paused, or resumed) that the catalog still shows as it
// was. The start repairs that here, before the server answers anything, and a repeated admin
// call finishes it too (the routes treat a repeat of what the engine already did as done).
import type { EngineMarketState } from '../admin/routes.js';
import type { CatalogStore } from '../catalog/store.js';
import type { Logger } from '../log.js';
import type { TradingRuntime } from './runtime.js';

/** The engine's state of a market, from the read model. */
export function engineMarketState(trading: TradingRuntime, conditionId: string): EngineMarketState | undefined {
  const book = trading.marketData.book(conditionId);
  return book === undefined ? undefined : { accepting: book.accepting, resolved: book.resolved, winner: book.winner };
}

/** Sets the catalog's flags of every market the engine knows to what the engine says; returns how many it changed. */
export function syncCatalogFlags(store: CatalogStore, trading: TradingRuntime, nowMs: number, log: Logger): number {
  let repaired = 0;
  for (const market of store.allMarkets()) {
    if (!market.enableOrderBook) continue;
    const state = engineMarketState(trading, market.conditionId);
    if (state === undefined) continue;
    const wanted = state.resolved ? { acceptingOrders: false, closed: true } : { acceptingOrders: state.accepting, closed: market.closed };
    if (wanted.acceptingOrders === market.acceptingOrders && wanted.closed === market.closed) continue;
    store.setMarketFlags(market.id, wanted, nowMs);
    repaired++;
    log.warn('catalog market repaired from the engine', {
      conditionId: market.conditionId, acceptingOrders: wanted.acceptingOrders, closed: wanted.closed, resolved: state.resolved,
    });
  }
  return repaired;
}
