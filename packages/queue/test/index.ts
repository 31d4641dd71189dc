/** The package's test helpers (`@pay/queue/test`): for tests only, never for what ships. */
export * from './store';
