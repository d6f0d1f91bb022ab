// Test support: what `import electronUpdater from 'electron-updater'` gives the desktop bundle under
// electron-bundle-preload.ts: the stand-in's scriptable autoUpdater.
const { updater } = globalThis.__sbElectronStandIn;
export const autoUpdater = updater;
export default { autoUpdater: updater };
