import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('webhook-worker');
