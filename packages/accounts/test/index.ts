/** The package's test helpers (`@pay/accounts/test`): for tests only, never for what ships. */
export * from './store';
