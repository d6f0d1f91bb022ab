import { runConformance } from '../conformance.case.ts';
import { openaiFormat } from './index.ts';

runConformance(openaiFormat, { images: true, toolChoice: true, toolCallIds: true, usage: true, lengthFinish: true });
