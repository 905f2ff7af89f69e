// `npm run bench -- [suite ...] [--quick] [--json]`: runs the named benchmark suites (all by
// default). --quick is the small run CI does so no benchmark rots.
import { benchCatalog, printCatalog } from './catalog.js';

const suites: Record<string, (quick: boolean, asJson: boolean) => Promise<void>> = {
  catalog: async (quick, asJson) => {
    const rows = await benchCatalog(quick);
    if (asJson) console.log(JSON.stringify({ suite: 'catalog', rows }));
    else printCatalog(rows);
  },
};

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const asJson = args.includes('--json');
const named = args.filter((arg) => !arg.startsWith('--'));
for (const name of named) if (suites[name] === undefined) throw new Error(`unknown suite ${name}; known: ${Object.keys(suites).join(', ')}`);
for (const name of named.length > 0 ? named : Object.keys(suites)) await suites[name]?.(quick, asJson);
