/** The portal's chart: visitors and conversions per day, drawn by the web service's one chart component. */
import { chart, type ChartSeries } from '../console/components/chart';
import type { SafeHtml } from './html';
import type { DayActivity } from './portal-summary';

export const ACTIVITY_SERIES: ChartSeries[] = [
  { name: 'Visitors', colour: '#0b57d0' },
  { name: 'Conversions', colour: '#c2410c' },
];

export function activityChart(series: DayActivity[]): SafeHtml {
  return chart({
    id: 'activity',
    title: 'Visitors and conversions per day, last 30 days',
    series: ACTIVITY_SERIES,
    points: series.map((d) => ({ label: d.day, values: [d.visitors, d.conversions] })),
  });
}
