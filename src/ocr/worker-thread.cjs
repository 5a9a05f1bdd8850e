// The tesseract.js worker thread, with the network switched off: the language data comes from
// node_modules (engine.ts), so a fetch here would be a bug; it fails loudly instead of downloading.
'use strict';
globalThis.fetch = async (url) => {
  throw new Error(`the OCR worker does not use the network (tried to fetch ${String(url)})`);
};
// An exception escaping in this thread would reach the main thread as an 'error' event that
// tesseract.js does not listen for, and end the process; logged here, its job times out instead.
process.on('uncaughtException', (e) => {
  console.error(JSON.stringify({ level: 'error', msg: `OCR worker thread: ${String(e?.stack || e)}` }));
});
require('tesseract.js/src/worker-script/node/index.js');
