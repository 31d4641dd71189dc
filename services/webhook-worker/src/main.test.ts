import { describeServiceProcess } from '@pay/testing';

// The worker queries nothing yet and serves no docs.
describeServiceProcess('webhook-worker', { neverLoads: ['@prisma/client', '@prisma/adapter-pg', 'swagger-ui-dist'] });
