import { afterEach } from "vitest";
import { checkAnswer } from "./contract";

/*
 * Set up for every Vitest file (vitest.config.ts): each answer the tests get from the app's /api and /seat, through any
 * client, is checked against the contract; a mismatch fails the test that made the request.
 */
const fetchOf = globalThis.fetch;
let mismatch: Error | undefined;

globalThis.fetch = async (input, init) => {
  const response = await fetchOf(input, init);
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  await checkAnswer(method, response.url, response).catch((error: Error) => {
    mismatch ??= error;
    throw error;
  });
  return response;
};

// A test that caught the error itself (it expected the request to fail) still fails on a mismatch.
afterEach(() => {
  const found = mismatch;
  mismatch = undefined;
  if (found) throw found;
});
