import './instrument';
import { runService } from '@aff/kernel';
import { webService } from './service';

runService(webService);
