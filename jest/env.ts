import { testEnv } from './test-env';

Object.assign(process.env, testEnv());
