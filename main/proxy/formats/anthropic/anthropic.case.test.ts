// The shared conformance suite, run by the Anthropic Messages format.
import { runConformance } from '../conformance.case.ts';
import { anthropicFormat } from './index.ts';

runConformance(anthropicFormat, { images: true, toolChoice: true, toolCallIds: true, usage: true, lengthFinish: true });
