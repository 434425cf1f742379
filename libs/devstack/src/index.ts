export { startInfra } from './infra';
export type { Infra, StartInfraOptions } from './types';
export { freePort } from './free-port';
export { spawnManaged } from './managed-process';
export type { ManagedProcess, SpawnManagedOptions } from './managed-process';
export { waitForPort } from './wait-for-port';
export { installInfra } from './install-infra';
