export interface Infra {
  mongoUrl: string;
  natsUrl: string;
  redisUrl: string;
  /** Stops only what startInfra started; servers given through the environment are left alone. */
  stop(): Promise<void>;
}

export interface StartInfraOptions {
  /** Receives a line per server chosen, and server output when a server fails. Default: stderr. */
  log?: (line: string) => void;
  /** Parent for the temporary data dirs of locally started servers. Default: os.tmpdir(). */
  dataDir?: string;
  /**
   * Keep the data of locally started servers in this dir across runs (`npm start`): each server
   * in its own fixed subdir (`mongo`, `nats`, `redis`), Redis with its append-only file on, and
   * nothing is deleted on stop. Containers are then not used unless `containers` is true. Without
   * it, every run gets a fresh temporary dir under `dataDir`, removed on stop (tests, the bench).
   */
  keepDataIn?: string;
  /** false: never use containers, e.g. to test the local-binary path. Default: use them when an engine answers. */
  containers?: boolean;
  /**
   * Storage of a locally started mongo-java-server: `memory` (default; tests) or `h2` (a file in
   * its data dir, like `npm start` and the bench). Ignored for mongod, containers and MONGO_URL.
   */
  mongoBackend?: 'memory' | 'h2';
  /**
   * Start a NATS server of its own even when NATS_URL is set: for a second system (or one
   * service) beside the shared one. On the shared NATS its services would join the shared
   * system's RPC queue groups and durable consumers, and answer that system's requests from
   * their own databases.
   */
  ownNats?: boolean;
  /**
   * Start a MongoDB-protocol server of its own even when MONGO_URL is set (with `mongoBackend`):
   * for a system whose database must be the one `npm start` runs (the H2 backend), beside the
   * shared test server.
   */
  ownMongo?: boolean;
}

export type ServerName = 'mongo' | 'nats' | 'redis';

export interface StartedServer {
  url: string;
  /** Human-readable origin, for the log line saying which server is used. */
  source: string;
  stop(): Promise<void>;
}
