import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('crypto', { loadsOnDemand: [{ path: '/docs/assets/swagger-ui.css', package: 'swagger-ui-dist' }] });
