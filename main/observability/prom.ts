// prom-client's Registry, Counter and Gauge from their own modules: the package's index also loads its Pushgateway
// (node:https, node:zlib), its default metrics and its cluster aggregator, none of which Switchboard uses, at every
// start. prom-client is pinned to a minor range (^15.1) in package.json, so these paths are stable; prom.test.ts
// checks they are the very classes the index exports.
import type * as PromClient from 'prom-client';
// @ts-expect-error prom-client ships no types for its internal module paths; the casts below give the index's types.
import RegistryImpl from 'prom-client/lib/registry.js';
// @ts-expect-error (as above)
import CounterImpl from 'prom-client/lib/counter.js';
// @ts-expect-error (as above)
import GaugeImpl from 'prom-client/lib/gauge.js';

export const Registry = RegistryImpl as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
export const Counter = CounterImpl as typeof PromClient.Counter;
export type Counter<T extends string = string> = PromClient.Counter<T>;
export const Gauge = GaugeImpl as typeof PromClient.Gauge;
export type Gauge<T extends string = string> = PromClient.Gauge<T>;
export type { CounterConfiguration, Histogram } from 'prom-client';
