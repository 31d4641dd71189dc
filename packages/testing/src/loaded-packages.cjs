// Preloaded into a service under test (`node --require`): on SIGUSR2 the process writes the
// packages it has loaded from node_modules so far, as one line on stderr, so a test can
// check that it loads nothing it does not use. CommonJS, because compiled services run
// under plain node.
const { writeSync } = require('node:fs');

process.on('SIGUSR2', () => {
  const names = new Set();
  for (const file of Object.keys(require.cache)) {
    const m = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (m) names.add(m[1]);
  }
  writeSync(2, `loaded-packages ${JSON.stringify([...names].sort())}\n`);
});
