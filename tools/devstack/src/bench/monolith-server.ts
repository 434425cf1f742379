/**
 * Bench target (b): what a one-process monolith would do for `GET /v1/affiliates?limit=25`: one
 * node:http server running the same MongoDB queries with the same driver (mongoose) and
 * answering the same JSON envelope, with no auth, rate limit or messaging.
 */
import http from 'node:http';
import mongoose from 'mongoose';

const [portArg, mongoUrl, merchantId] = process.argv.slice(2);

async function main(): Promise<void> {
  const connection = await mongoose
    .createConnection(mongoUrl!, { dbName: 'affiliate' })
    .asPromise();
  const affiliates = connection.collection('affiliates');
  http
    .createServer((_req, res) => {
      const filter = { merchant_id: merchantId };
      void Promise.all([
        affiliates.find(filter).sort({ created_at: -1, _id: -1 }).skip(0).limit(25).toArray(),
        affiliates.countDocuments(filter),
      ]).then(([docs, total]) => {
        const data = docs.map(
          ({
            _id,
            merchant_id,
            campaign_id,
            customer_key,
            pending_events,
            commission_stats,
            ...rest
          }) => {
            void merchant_id;
            void campaign_id;
            void customer_key;
            void pending_events;
            void commission_stats;
            return { id: _id, ...rest };
          },
        );
        const totalPages = Math.ceil(total / 25);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            pagination: {
              previous_page: null,
              current_page: 1,
              next_page: totalPages > 1 ? 2 : null,
              count: data.length,
              limit: 25,
              total_pages: totalPages,
              total_count: total,
            },
            data,
          }),
        );
      });
    })
    .listen(Number(portArg), '127.0.0.1', () => process.send?.('ready'));
}

void main();
