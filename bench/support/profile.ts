// Summarises V8 .cpuprofile files (as `node --cpu-prof` writes them, one per thread) by self
// time: the busiest source files and functions of each thread, as shares of its samples.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
}

export interface ProfileSummary {
  readonly file: string;
  readonly samples: number;
  /** Self samples by source file (or a V8 pseudo-frame such as "(garbage collector)"), busiest first. */
  readonly files: readonly { readonly name: string; readonly share: number }[];
  readonly functions: readonly { readonly name: string; readonly share: number }[];
}

function top(counts: Map<string, number>, total: number, count: number): { name: string; share: number }[] {
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, count).map(([name, hits]) => ({ name, share: hits / Math.max(1, total) }));
}

export function summarizeProfile(path: string, count: number): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as { nodes: ProfileNode[] };
  const files = new Map<string, number>();
  const functions = new Map<string, number>();
  let samples = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const file = url === '' ? (functionName.startsWith('(') ? functionName : '(native)') : basename(url);
    const name = `${functionName || '(anonymous)'} ${url === '' ? '' : `${basename(url)}:${lineNumber + 1}`}`.trim();
    if (functionName !== '(idle)') samples += hits;
    files.set(file, (files.get(file) ?? 0) + hits);
    functions.set(name, (functions.get(name) ?? 0) + hits);
  }
  files.delete('(idle)');
  functions.delete('(idle)');
  return { file: basename(path), samples, files: top(files, samples, count), functions: top(functions, samples, count) };
}

/** Every profile in `dir`, busiest thread first. */
export function summarizeProfiles(dir: string, count: number): ProfileSummary[] {
  return readdirSync(dir).filter((name) => name.endsWith('.cpuprofile')).map((name) => summarizeProfile(join(dir, name), count))
    .sort((a, b) => b.samples - a.samples);
}
