export * from './connection';
export * from './pending-events';
export * from './processed-events';
export * from './tenant-repository';
export * from './bulk-updates';
export * from './readiness';
export * from './newest-index';
export * from './batched-lookup';
