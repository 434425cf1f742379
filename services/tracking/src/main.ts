import './instrument';
import { runService } from '@aff/kernel';
import { trackingService } from './service';

runService(trackingService);
