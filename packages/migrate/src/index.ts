export { deploy, describeDeployResult, type DeployOptions, type DeployResult } from './deploy';
export { checkMigrations, checkReport, type CheckOptions, type CheckResult } from './check';
export { functionFiles, inspectFunctions, type FunctionDrift, type FunctionFile } from './functions';
export { createMigration, type CreateOptions, type CreateResult } from './create';
export { discoverTargets, findRepoRoot, postgresSchemaOf, targetFromDir, type Target } from './targets';
export { DEFAULT_DATABASE_URL, dropDatabase, parseDatabaseUrl, type PgFields } from './connection';
export { EngineError } from './engine';
export { LOCKFILE_CONTENT } from './migrations';
