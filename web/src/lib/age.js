// How long ago an ISO-8601 time was, as the list of sessions shows it: the largest whole unit,
// with the next one while the first is below 10, so "1h 40m" is not flattened to "1h".

const units = [
  { suffix: 'd', seconds: 86400 },
  { suffix: 'h', seconds: 3600 },
  { suffix: 'm', seconds: 60 },
  { suffix: 's', seconds: 1 },
];

export function formatAge(isoTime, nowMs) {
  const then = Date.parse(isoTime);
  if (Number.isNaN(then)) return '';
  const elapsed = Math.floor((nowMs - then) / 1000);
  // A browser clock a little behind the server's gives a negative age: that is "now" too.
  if (elapsed < 1) return 'now';
  const at = units.findIndex((unit) => elapsed >= unit.seconds);
  const unit = units[at];
  const whole = Math.floor(elapsed / unit.seconds);
  const smaller = units[at + 1];
  if (whole >= 10 || !smaller) return `${whole}${unit.suffix}`;
  const rest = Math.floor((elapsed % unit.seconds) / smaller.seconds);
  return rest > 0 ? `${whole}${unit.suffix} ${rest}${smaller.suffix}` : `${whole}${unit.suffix}`;
}
