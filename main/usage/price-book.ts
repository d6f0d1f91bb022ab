// The routing strategies' prices (main/proxy/strategy/choose.ts, PriceBook): a provider and model's USD per million
// input and output tokens, as priceOf would charge them (config.json's prices first, 0 for a local provider, then the
// price table); null when either is unknown. The engine asks once per route and provider, then keeps the answer.
import type { Config, ProviderConfig } from '../../shared/config.ts';
import type { PriceBook } from '../proxy/strategy/choose.ts';
import { priceOf } from './prices.ts';

const MTOK = 1_000_000;
const NONE = { prompt_tokens: 0, completion_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };

export const priceBook: PriceBook = {
  perMillion(provider: ProviderConfig, model: string, config: Config) {
    const input = priceOf({ ...NONE, model, prompt_tokens: MTOK }, provider, config).cost_usd;
    const output = priceOf({ ...NONE, model, completion_tokens: MTOK }, provider, config).cost_usd;
    return input === null || output === null ? null : { input, output };
  },
};
