function check(x) {
  debugger;
  return x > 0;
}

module.exports = { check };
