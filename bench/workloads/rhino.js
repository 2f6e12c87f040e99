// Interpreter-style workload for bench/cct_overhead.py (Rhino 1.7.14, interpreted): megamorphic
// dispatch through Rhino's Scriptable hierarchy, its own overrides of equals/hashCode/toString
// called back from JDK collections, string building, closures, sorting and JSON.
function Vec(x, y) { this.x = x; this.y = y; }
Vec.prototype.add = function (o) { return new Vec(this.x + o.x, this.y + o.y); };
Vec.prototype.len2 = function () { return this.x * this.x + this.y * this.y; };
Vec.prototype.toString = function () { return "(" + this.x + "," + this.y + ")"; };

function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

function sieve(n) {
  var flags = [], count = 0;
  for (var i = 2; i <= n; i++) flags[i] = true;
  for (var p = 2; p <= n; p++) {
    if (flags[p]) { count++; for (var k = p * p; k <= n; k += p) flags[k] = false; }
  }
  return count;
}

function words(seed, n) {
  var out = [], s = seed;
  for (var i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    var w = "";
    for (var j = 0; j < 3 + (s % 6); j++) w += String.fromCharCode(97 + ((s >> (j * 3)) % 26));
    out.push(w);
  }
  return out;
}

function histogram(ws) {
  var h = {};
  for (var i = 0; i < ws.length; i++) h[ws[i]] = (h[ws[i]] || 0) + 1;
  var keys = Object.keys(h).sort(function (a, b) { return h[b] - h[a] || (a < b ? -1 : a > b ? 1 : 0); });
  return keys.slice(0, 5).map(function (k) { return k + ":" + h[k]; }).join(" ");
}

function vectors(n) {
  var acc = new Vec(0, 0), list = [];
  for (var i = 0; i < n; i++) {
    var v = new Vec(i % 17, (i * 7) % 13);
    acc = acc.add(v);
    if (i % 1000 === 0) list.push(String(v));
  }
  list.sort();
  return acc.len2() + " " + list.length + " " + list[0];
}

function javaCollections(n) {
  var map = new java.util.HashMap(), set = new java.util.TreeSet();
  for (var i = 0; i < n; i++) {
    var key = "k" + (i % 997);
    var old = map.get(key);
    map.put(key, old == null ? 1 : old + 1);
    set.add(java.lang.Integer.valueOf((i * 31) % 5003));
  }
  return map.size() + " " + set.size() + " " + set.first() + " " + set.last();
}

function json(n) {
  var total = 0;
  for (var i = 0; i < n; i++) {
    var o = { id: i, name: "item" + i, tags: ["a", "b", String(i % 7)], nested: { v: i * 0.5 } };
    var s = JSON.stringify(o);
    total += JSON.parse(s).nested.v + s.length;
  }
  return total;
}

function regex(ws) {
  var re = /^([a-m]+)([n-z]*)$/, m = 0;
  for (var i = 0; i < ws.length; i++) if (re.test(ws[i])) m++;
  return m + " " + ws.join("").replace(/[aeiou]/g, "").length;
}

var ws = words(42, 30000);
print("R fib " + fib(24));
print("R sieve " + sieve(150000));
print("R hist " + histogram(ws));
print("R vec " + vectors(120000));
print("R coll " + javaCollections(80000));
print("R json " + json(10000));
print("R regex " + regex(ws));
