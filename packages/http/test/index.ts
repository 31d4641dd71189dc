/** The package's test helpers (`@pay/http/test`): for tests only, never for what ships. */
export * from './store';
