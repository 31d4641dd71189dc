/** The package's test helpers (`@pay/webhooks/test`): for tests only, never for what ships. */
export * from './store';
