import './instrument';
import { runService } from '@aff/kernel';
import { commissionService } from './service';

runService(commissionService);
