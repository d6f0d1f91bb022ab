// The shared conformance suite run on the OpenAI Responses format.
import { runConformance } from '../conformance.case.ts';
import { responsesFormat } from './index.ts';

runConformance(responsesFormat, { images: true, toolChoice: true, toolCallIds: true, usage: true, lengthFinish: true });
