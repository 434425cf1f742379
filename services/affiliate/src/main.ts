import './instrument';
import { runService } from '@aff/kernel';
import { affiliateService } from './service';

runService(affiliateService);
