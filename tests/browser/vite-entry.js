import { readStores } from "./read.js";

const names = new URL(location.href).searchParams.get("stores").split(",");
readStores(names).then(
  (r) => { window.__result = r; },
  (e) => { window.__error = `${e} ${e.cause ?? ""}`; },
);
