// Test helper: fixtures the Gemini tests share (the shared ones, badRequest and withServer among them, are in
// ../fixtures.test-helper.ts).

/** The head of the hub replies the client-side tests write (Gemini shows it as responseId and modelVersion). */
export const hubBase = { id: 'chatcmpl-9', created: 1700000000, model: 'gpt-4o' };
