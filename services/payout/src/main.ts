import './instrument';
import { runService } from '@aff/kernel';
import { payoutService } from './service';

runService(payoutService);
