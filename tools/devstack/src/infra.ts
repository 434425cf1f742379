import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerAvailable, startContainerServer } from './container-servers';
import { onParentExit } from './exit-hooks';
import { installInfra } from './install-infra';
import { localCommand, startLocalServer } from './local-servers';
import type { Infra, ServerName, StartedServer, StartInfraOptions } from './types';

const ENV_URLS: Record<ServerName, string> = {
  mongo: 'MONGO_URL',
  nats: 'NATS_URL',
  redis: 'REDIS_URL',
};
const NAMES: ServerName[] = ['mongo', 'nats', 'redis'];

type Source = 'env' | 'container' | 'local';

async function chooseSource(
  name: ServerName,
  opts: Pick<StartInfraOptions, 'containers' | 'ownNats' | 'ownMongo' | 'keepDataIn'>,
): Promise<Source> {
  // Data kept across runs lives in local files; a container's would go with the container.
  const containers = opts.containers ?? !opts.keepDataIn;
  const shared = !(name === 'nats' && opts.ownNats) && !(name === 'mongo' && opts.ownMongo);
  if (shared && process.env[ENV_URLS[name]]) return 'env';
  return containers && (await dockerAvailable()) ? 'container' : 'local';
}

function fromEnv(name: ServerName): StartedServer {
  const variable = ENV_URLS[name];
  return {
    url: process.env[variable] as string,
    source: `$${variable}`,
    stop: async () => undefined,
  };
}

/**
 * Makes Mongo, NATS and Redis available, each from the first of: a URL in the
 * environment, a container (when an engine answers), a local binary.
 */
export async function startInfra(opts: StartInfraOptions = {}): Promise<Infra> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sources = await Promise.all(NAMES.map((name) => chooseSource(name, opts)));
  const localNames = NAMES.filter((_, i) => sources[i] === 'local');
  if (localNames.some((name) => !localCommand(name))) installInfra();

  const keep = opts.keepDataIn;
  if (keep && localNames.length) mkdirSync(keep, { recursive: true });
  const dataRoot = !localNames.length
    ? undefined
    : (keep ?? mkdtempSync(join(opts.dataDir ?? tmpdir(), 'aff-infra-')));
  const removeData = (): void => {
    if (dataRoot && !keep) rmSync(dataRoot, { recursive: true, force: true });
  };
  const forgetExitHook = onParentExit(removeData);

  const results = await Promise.allSettled(
    NAMES.map((name, i) => {
      if (sources[i] === 'env') return Promise.resolve(fromEnv(name));
      if (sources[i] === 'container') return startContainerServer(name);
      return startLocalServer(name, dataRoot as string, log, {
        mongoBackend: opts.mongoBackend,
        persistent: keep !== undefined,
      });
    }),
  );
  const started = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const stopAll = async (): Promise<void> => {
    await Promise.allSettled(started.map((server) => server.stop()));
    removeData();
    forgetExitHook();
  };

  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    await stopAll();
    throw failure.reason;
  }

  const [mongo, nats, redis] = started as [StartedServer, StartedServer, StartedServer];
  NAMES.forEach((name, i) =>
    log(`devstack: ${name} at ${started[i]?.url} (${started[i]?.source})`),
  );
  let stopping: Promise<void> | undefined;
  return {
    mongoUrl: mongo.url,
    natsUrl: nats.url,
    redisUrl: redis.url,
    stop: () => (stopping ??= stopAll()),
  };
}
