export * from './definition';
export * from './interval-jobs';
export * from './start-service';
export * from './run-service';
