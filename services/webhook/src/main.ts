import './instrument';
import { runService } from '@aff/kernel';
import { webhookService } from './service';

runService(webhookService);
