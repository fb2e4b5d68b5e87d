// Hands an API answer to a page only while the page still wants it: a page that changed (another
// directory, another thread) before the answer came must not show the old one. Returns the
// function that stops wanting it, which is what an $effect returns.
export function whileWanted(promise, onAnswer, onError) {
  let wanted = true;
  promise.then(
    (answer) => wanted && onAnswer(answer),
    (error) => wanted && onError(error),
  );
  return () => (wanted = false);
}
