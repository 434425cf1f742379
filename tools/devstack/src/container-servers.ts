import { pinnedNatsVersion } from './nats-version';
import type { ServerName, StartedServer } from './types';

interface ContainerSpec {
  image: string;
  port: number;
  command?: string[];
  url: (host: string, port: number) => string;
}

function containerSpec(name: ServerName): ContainerSpec {
  switch (name) {
    case 'mongo':
      return { image: 'mongo:7', port: 27017, url: (host, port) => `mongodb://${host}:${port}/` };
    case 'nats':
      return {
        image: `nats:${pinnedNatsVersion()}`,
        port: 4222,
        command: ['-js'],
        url: (host, port) => `nats://${host}:${port}`,
      };
    case 'redis':
      return { image: 'redis:7', port: 6379, url: (host, port) => `redis://${host}:${port}` };
  }
}

let dockerProbe: Promise<boolean> | undefined;

/**
 * Whether a container engine answers. testcontainers is loaded lazily because
 * requiring it costs ~0.5 s, wasted when every URL comes from the environment.
 * The probe fails fast and silently when there is no engine.
 */
export function dockerAvailable(): Promise<boolean> {
  dockerProbe ??= import('testcontainers')
    .then(({ getContainerRuntimeClient }) => getContainerRuntimeClient())
    .then(
      () => true,
      () => false,
    );
  return dockerProbe;
}

/** Starts `name` in a container; testcontainers' reaper removes it if we die first. */
export async function startContainerServer(name: ServerName): Promise<StartedServer> {
  const { GenericContainer } = await import('testcontainers');
  const spec = containerSpec(name);
  let container = new GenericContainer(spec.image).withExposedPorts(spec.port);
  if (spec.command) container = container.withCommand(spec.command);
  const started = await container.start();
  return {
    url: spec.url(started.getHost(), started.getMappedPort(spec.port)),
    source: `container ${spec.image}`,
    stop: async () => {
      await started.stop();
    },
  };
}
