// The shared conformance suite, run by the Anthropic Messages format.
import { anthropicFormat } from './anthropic.ts';
import { runConformance } from './conformance.case.ts';

runConformance(anthropicFormat, { images: true, toolChoice: true, toolCallIds: true, usage: true, lengthFinish: true });
