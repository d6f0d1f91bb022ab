// What undici's HTTP/2 client (lib/dispatcher/client-h2.js) gets for `require('node:http2')` in the CLI bundle
// (scripts/build.mjs): the constants it reads when it loads, and node:http2 itself only when it opens an HTTP/2
// session. undici loads client-h2.js with its Agent, and node:http2 (with node:tls) cost ~7 ms of every start;
// Switchboard never asks undici for HTTP/2 (no allowH2). undici-http2-lazy.test.ts checks these values against
// node:http2's and that client-h2.js reads no other constant.
'use strict';

const constants = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_REFUSED_STREAM: 7,
  NGHTTP2_CANCEL: 8,
};

module.exports = {
  constants,
  connect: (...args) => require('node:http2').connect(...args),
};
