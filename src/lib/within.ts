/**
 * `p`, or `onTimeout` after `ms` of real time, whichever comes first. The timer is cleared as soon as either settles:
 * a race against a bare sleep leaves it armed, and an armed timer keeps the process alive until it fires (a task
 * scenario's whole time limit, two minutes after certify's last report line).
 */
export function within<T, U>(p: Promise<T>, ms: number, onTimeout: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<U>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
