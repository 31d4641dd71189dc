import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('invoicing', { loadsOnDemand: [{ path: '/docs/assets/swagger-ui.css', package: 'swagger-ui-dist' }] });
