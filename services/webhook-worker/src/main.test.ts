import { describeServiceProcess } from '@pay/testing';

// The worker serves no docs.
describeServiceProcess('webhook-worker', { neverLoads: ['swagger-ui-dist'] });
