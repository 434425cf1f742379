/** What `npm run bench -- --help` prints. */
export const BENCH_USAGE = `npm run bench -- [options]
  --duration 10            seconds of each measured load
  --connections 20         concurrent connections (and raw insert writers)
  --only visits|charges|console
                           one phase alone: visits (raw inserts, visits, hooked visits,
                           skeleton), charges (drain and steady, --charges N), console
  --charges 2000           attributed customers and backlog of the charge phase
  --deliveries 2000        webhook backlog
  --referrals 10000        referrals of the large referral list
  --skip-console           the whole bench without the console phase
  --affiliates 10000 --console-referrals N --console-commissions 10000
  --console-requests 30 --console-backend memory|h2
                           the console phase's sizes
  --json FILE              the figures as JSON too
`;
