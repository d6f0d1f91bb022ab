// The shared skeleton of the wire formats: hub types, JSON helpers, the sampling-parameter map, the SSE-JSON decoder
// base, the tool-call assembler, the tool-arguments policy, the usage mapper, error helpers and the answer tool.
export * from './types.ts';
export * from './json.ts';
export * from './content.ts';
export * from './cache-control.ts';
export * from './params.ts';
export * from './reasoning.ts';
export * from './usage.ts';
export * from './tool-arguments.ts';
export * from './tool-calls.ts';
export * from './chunks.ts';
export * from './sse-json.ts';
export * from './errors.ts';
export * from './answer-tool.ts';
