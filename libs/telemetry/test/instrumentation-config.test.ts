/**
 * Which Express instrumentation a process gets: the gateway's app serves HTTP, and its route
 * labels the HTTP server metrics even when no span is exported; the web service's app answers
 * `renderPage` in-process, where the instrumentation would only wrap every layer of a page.
 */
import { instrumentationConfig } from '../src/index';

const express = (exporting: boolean, servesHttp: boolean) =>
  instrumentationConfig(exporting, servesHttp)['@opentelemetry/instrumentation-express'];

it('keeps the route naming where Express serves HTTP, and skips Express where it does not', () => {
  expect(express(false, true)).toEqual({
    ignoreLayersType: ['router', 'middleware', 'request_handler'],
  });
  expect(express(false, false)).toEqual({ enabled: false });
});

it('builds Express spans in both kinds of process when spans are exported', () => {
  expect(express(true, true)).toEqual({});
  expect(express(true, false)).toEqual({});
});
