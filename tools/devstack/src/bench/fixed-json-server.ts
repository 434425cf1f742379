/** Bench target (a): the ceiling of any Node HTTP path, a bare server answering a fixed body. */
import http from 'node:http';

const body = JSON.stringify({
  pagination: {
    previous_page: null,
    current_page: 1,
    next_page: null,
    count: 0,
    limit: 25,
    total_pages: 0,
    total_count: 0,
  },
  data: [],
});
const port = Number(process.argv[2] ?? 0);
http
  .createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => process.send?.('ready'));
