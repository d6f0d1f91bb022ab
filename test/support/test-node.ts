// Test support: the Node binary the as-shipped tests start the build with. Each as-shipped project of
// vitest.config.ts sets SWITCHBOARD_TEST_NODE_MAJOR (20, 22, 24); its binary is the test runner's own for its major,
// else the registry's official binary for the pinned version (scripts/test-nodes.mjs), installed by the project's
// global setup. Outside those projects (the unit tests, `npm run fuzz`) it is the running Node.
// @ts-expect-error a plain ES module script without types
import { testNodeBinary } from '../../scripts/test-nodes.mjs';

const resolved = new Map<string, string>();

/** The path of the Node binary to start Switchboard's build with. */
export function testNode(): string {
  const major = process.env.SWITCHBOARD_TEST_NODE_MAJOR;
  if (!major) return process.execPath;
  let bin = resolved.get(major);
  if (!bin) resolved.set(major, (bin = (testNodeBinary as (m: string) => string)(major)));
  return bin;
}

/** The major version of testNode(), e.g. '22'. */
export function testNodeMajor(): string {
  return process.env.SWITCHBOARD_TEST_NODE_MAJOR ?? process.versions.node.split('.')[0]!;
}
