// Reading a per-shard metric from a server's /metrics text (the replication suites and tests).

/** A per-shard metric of /metrics summed over the shards, and how many shards it had. */
export function sumOverShards(text: string, name: string): { total: number; shards: number } {
  let total = 0;
  let shards = 0;
  for (const match of text.matchAll(new RegExp(`^${name}\\{shard="\\d+"\\} (\\S+)$`, 'gm'))) {
    total += Number(match[1]);
    shards++;
  }
  return { total, shards };
}
