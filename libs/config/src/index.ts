/**
 * Typed configuration from the environment. A wrong or missing setting stops the process at
 * start with a message naming the variable, instead of failing later on first use.
 */
import { z } from 'zod';

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    return `${name}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/** Reusable variable shapes. */
export const env = {
  url: (protocols: string[]) =>
    z
      .string({ error: 'is required' })
      .refine((value) => protocols.some((p) => value.startsWith(`${p}://`)), {
        error: `must be a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
      }),
  /** One URL or several, comma-separated (the seeds of a cluster), each checked. */
  urlList: (protocols: string[]) =>
    z
      .string({ error: 'is required' })
      .refine(
        (value) =>
          value.split(',').every((url) => protocols.some((p) => url.trim().startsWith(`${p}://`))),
        {
          error: `must be a URL, or comma-separated URLs, each starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
        },
      ),
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
  positiveNumber: (fallback: number) => z.coerce.number().positive().default(fallback),
  flag: (fallback: boolean) =>
    z
      .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  logLevel: () =>
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/** Settings every service shares. */
export const commonConfigSchema = z.object({
  NATS_URL: env.urlList(['nats', 'tls']),
  LOG_LEVEL: env.logLevel(),
  /** Milliseconds a gateway waits for a service's reply before answering 504. */
  RPC_TIMEOUT_MS: env.positiveInt(5000),
  /**
   * Copies JetStream keeps of each stream: 1 on a single server, 3 on a three-node cluster (a
   * lost node then loses no message). More than the cluster has nodes stops the service at start.
   */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** How often a service deletes what its retention rules no longer keep (docs/retention.md). */
  RETENTION_PRUNE_MS: env.positiveInt(600_000),
});
