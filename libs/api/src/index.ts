export * from './app-error';
export * from './pagination';
export * from './query';
export * from './health-server';
export * from './run-until-signalled';
export * from './money';
export * from './repository-types';
