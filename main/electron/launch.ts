// `npm start`: the desktop shell's entry until the Electron app lands; says what to run instead.
process.stdout.write(
  'The Switchboard desktop app (tray, window, settings UI) is not built yet.\n' +
    'Run the same router headless with:  npm run serve\n' +
    'It reads the same config.json the desktop app will use (see `npx switchboard config path`).\n',
);
