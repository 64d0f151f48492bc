// Preloaded with `node -r` before Portkey's gateway, which listens on every interface and has no
// option to choose one: every server this process starts listens on 127.0.0.1 instead.
"use strict";
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (first !== null && typeof first === "object") {
    args[0] = { ...first, host: "127.0.0.1" };
  } else if (typeof first === "number" || /^[0-9]+$/.test(String(first))) {
    if (typeof args[1] === "function") {
      args.splice(1, 0, "127.0.0.1");
    } else {
      args[1] = "127.0.0.1";
    }
  }
  return listen.apply(this, args);
};
