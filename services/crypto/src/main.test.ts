import { describeServiceProcess } from '@pay/testing';

describeServiceProcess('crypto');
