// PostGraphile 5 declares Node >= 22 and calls Promise.withResolvers (Node 22); this project runs
// on Node 20 (package.json engines), so bench/peers.ts starts bench/peers/postgraphile-server.ts
// with `--import` of this file. Nothing else in the repository loads it.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
