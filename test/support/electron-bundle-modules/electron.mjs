// Test support: what `import … from 'electron'` gives the desktop bundle under electron-bundle-preload.ts.
const { electron } = globalThis.__sbElectronStandIn;
export const {
  app,
  BrowserWindow,
  Menu,
  Notification,
  Tray,
  dialog,
  ipcMain,
  nativeImage,
  nativeTheme,
  screen,
  session,
  shell,
} = electron;
export default electron;
