// Ollama's /api/chat through the shared conformance suite: no tool_choice and no tool call ids in the format.
import { runConformance } from '../conformance.case.ts';
import { ollamaFormat } from './index.ts';

runConformance(ollamaFormat, { images: true, toolChoice: false, toolCallIds: false, usage: true, lengthFinish: true });
