// One ticking "now" for every age on the page, so ages move without a request.

let now = $state(Date.now());
let users = 0;
let timer = null;

export function useNow() {
  $effect(() => {
    if (users++ === 0) timer = setInterval(() => (now = Date.now()), 1000);
    return () => {
      if (--users === 0) clearInterval(timer);
    };
  });
  return {
    get ms() {
      return now;
    },
  };
}
