// Test support: module hooks for electron-bundle-preload.ts (they run on Node's hooks thread). 'electron' and
// 'electron-updater' resolve to the stand-in's modules; every URL resolved is posted back to the preload.
let port;
let modules;

export function initialize(data) {
  port = data.port;
  modules = data.modules;
}

export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: `${modules}electron.mjs`, shortCircuit: true };
  if (specifier === 'electron-updater') return { url: `${modules}electron-updater.mjs`, shortCircuit: true };
  const r = await next(specifier, context);
  port.postMessage(r.url);
  return r;
}
