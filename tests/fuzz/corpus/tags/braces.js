function f(a) {
  return `${a}}`;
}
class K { m() { return /}/; } }
