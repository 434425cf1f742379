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
  /** false: never use containers, e.g. to test the local-binary path. Default: use them when an engine answers. */
  containers?: boolean;
  /**
   * Storage of a locally started mongo-java-server: `memory` (default; tests) or `h2` (a file in
   * its data dir, like `npm start` and the bench). Ignored for mongod, containers and MONGO_URL.
   */
  mongoBackend?: 'memory' | 'h2';
}

export type ServerName = 'mongo' | 'nats' | 'redis';

export interface StartedServer {
  url: string;
  /** Human-readable origin, for the log line saying which server is used. */
  source: string;
  stop(): Promise<void>;
}
