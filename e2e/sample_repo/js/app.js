function total(items) {
  var sum = 0;
  for (const item of items) {
    sum += item.price;
  }
  console.log("total", sum);
  return sum;
}

module.exports = { total };
