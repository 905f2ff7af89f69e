// The tokens a read benchmark rotates over: the first TOKENS_READ of a server's markets that
// accept orders (GET /sampling-markets), the demo's unless the benchmark made its own.
export const TOKENS_READ = 8;

export async function readTokens(clobUrl: string, count = TOKENS_READ): Promise<string[]> {
  const markets = (await (await fetch(`${clobUrl}/sampling-markets`)).json()) as { data: { tokens: { token_id: string }[] }[] };
  return markets.data.flatMap((market) => market.tokens.map((token) => token.token_id)).slice(0, count);
}
