// The node:http baseline of the market-data benchmark: a plain node:http server that answers
// every request with one cached body (the body clobd served for the same GET /book), so the
// comparison is the HTTP stack and the lookup, not the work of building the body. Run as a
// child process; prints `listening <url>`.
import { createServer } from 'node:http';

const body = Buffer.from(process.env['BODY'] ?? '{}');
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  response.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.stdout.write(`listening http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
