import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('invoicing');
