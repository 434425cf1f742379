import { ConfigError } from '@aff/config';
import { loadGatewayConfig } from '../src/config';

const valid = {
  MONGO_URL: 'mongodb://127.0.0.1:27017/',
  NATS_URL: 'nats://127.0.0.1:4222',
  REDIS_URL: 'redis://127.0.0.1:6379',
};

describe('gateway configuration', () => {
  it('applies defaults', () => {
    expect(loadGatewayConfig(valid)).toMatchObject({
      PORT: 8080,
      PUBLIC_URL: 'http://127.0.0.1:8080',
      RATE_LIMIT_POINTS: 45,
      RATE_LIMIT_WINDOW_SECONDS: 30,
      TRUST_PROXY: 'loopback',
      AUTH_FAILURE_POINTS: 20,
      AUTH_FAILURE_WINDOW_SECONDS: 60,
      IDEMPOTENCY_TTL_HOURS: 24,
      IDEMPOTENCY_WAIT_MS: 10_000,
    });
  });

  it("reads TRUST_PROXY in Express's syntax and refuses what Express cannot read", () => {
    const trust = (value: string) =>
      loadGatewayConfig({ ...valid, TRUST_PROXY: value }).TRUST_PROXY;
    expect(trust('true')).toBe(true);
    expect(trust('false')).toBe(false);
    expect(trust('2')).toBe(2);
    expect(trust('loopback, 10.0.0.0/8')).toBe('loopback, 10.0.0.0/8');
    expect(() => trust('yes')).toThrow(/TRUST_PROXY/);
  });

  it('fails fast naming every wrong or missing variable', () => {
    expect(() => loadGatewayConfig({ ...valid, REDIS_URL: undefined, PORT: 'eighty' })).toThrow(
      ConfigError,
    );
    let error: unknown;
    try {
      loadGatewayConfig({ ...valid, REDIS_URL: undefined, PORT: 'eighty', MONGO_URL: 'http://x' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^PORT: /m);
    expect(problems).toMatch(/^REDIS_URL: /m);
    expect(problems).toMatch(/^MONGO_URL: must be a URL starting with mongodb:\/\//m);
  });

  it('takes NATS_URL as one server or a comma-separated list, each a NATS URL, and the replica count', () => {
    const seeds = 'nats://n1:4222, nats://n2:4222,tls://n3:4222';
    expect(
      loadGatewayConfig({ ...valid, NATS_URL: seeds, NATS_STREAM_REPLICAS: '3' }),
    ).toMatchObject({ NATS_URL: seeds, NATS_STREAM_REPLICAS: 3 });
    expect(loadGatewayConfig(valid).NATS_STREAM_REPLICAS).toBe(1);
    for (const [name, value] of [
      ['NATS_URL', 'nats://n1:4222,n2:4222'],
      ['NATS_STREAM_REPLICAS', '0'],
      ['NATS_STREAM_REPLICAS', '7'],
    ]) {
      expect(() => loadGatewayConfig({ ...valid, [name!]: value })).toThrow(
        new RegExp(`${name}: `),
      );
    }
  });
});
