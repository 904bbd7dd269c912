"use strict";
/* derive self-check page: checks typed answers exactly, on BigInt rationals.
 *
 * Mirrors derive's Python reader, judge and diagnosis (derive.kernel.exact.parse_exact,
 * derive.exercises.reader.decimal_places, derive.exercises.claims.judge,
 * derive.exercises.diagnosis.diagnose, derive.exercises.near_miss) on the data derive computes
 * for each question (derive.exercises.selfcheck): a typed answer gets the verdict and the name
 * `derive check` gives the same claim. Values are never binary floats: every value is
 * {n: BigInt, d: BigInt} with d > 0 and gcd(n, d) = 1. Plain JavaScript numbers are used only
 * for counts (places, lengths, indices), the FNV-1a hash, and to ask whether a typed decimal is
 * exactly what a program prints for some double (float_artefact; compared as rationals).
 * A vector's or a matrix's question is a grid of inputs, one per entry, read row-major as the
 * list of its entries (the data's `shape`): each entry judged as an element of a list claim,
 * each wrong one marked.
 * No eval, no HTML writing (text goes through textContent and text nodes; a mistake's words
 * with math are a copy of an inert <template> derive typeset at export time, cloned, never
 * HTML read from data), no network (an LMS's SCORM API above the page, where there is one, is
 * told each verdict by scorm.js, which runs before this file). The one storage is
 * the reader's own answers, in the browser's localStorage under a key of this page's content
 * and variant (pageStore); a browser that refuses storage leaves the page working without it.
 */
var DeriveCheck = (function () {
  // ---------------------------------------------------------------- rationals
  function gcd(a, b) {
    if (a < 0n) a = -a;
    if (b < 0n) b = -b;
    while (b !== 0n) { var t = a % b; a = b; b = t; }
    return a;
  }
  function rat(n, d) {
    if (d === undefined) d = 1n;
    if (d === 0n) throw new RangeError("division by zero");
    if (d < 0n) { n = -n; d = -d; }
    var g = gcd(n, d);
    if (g > 1n) { n /= g; d /= g; }
    return { n: n, d: d };
  }
  var ZERO = rat(0n), ONE = rat(1n);
  function add(a, b) { return rat(a.n * b.d + b.n * a.d, a.d * b.d); }
  function sub(a, b) { return rat(a.n * b.d - b.n * a.d, a.d * b.d); }
  function mul(a, b) { return rat(a.n * b.n, a.d * b.d); }
  function div(a, b) { return rat(a.n * b.d, a.d * b.n); }
  function neg(a) { return { n: -a.n, d: a.d }; }
  function absr(a) { return a.n < 0n ? neg(a) : a; }
  function cmp(a, b) {
    var l = a.n * b.d, r = b.n * a.d;
    return l < r ? -1 : (l > r ? 1 : 0);
  }
  function eq(a, b) { return a.n === b.n && a.d === b.d; }
  function pow10(e) { // 10^e for a BigInt e of any sign
    return e >= 0n ? rat(10n ** e) : rat(1n, 10n ** -e);
  }
  function powr(a, k) { // a^k for a BigInt k of any sign (throws on 0^negative)
    if (k >= 0n) return rat(a.n ** k, a.d ** k);
    return rat(a.d ** -k, a.n ** -k);
  }
  var RAT_TEXT = /^(-?)([0-9]+)(?:\/([0-9]+))?$/;
  function readRat(text) { // a data value "p/q" or "p" (decimal text is read too)
    var m = RAT_TEXT.exec(String(text));
    if (!m) {
      var x = parse(String(text));
      if (x === null) throw new TypeError("not an exact value: " + text);
      return rat(x.n, x.d);
    }
    var n = BigInt(m[2]);
    return rat(m[1] === "-" ? -n : n, m[3] === undefined ? 1n : BigInt(m[3]));
  }
  function halfAway(x) { // x rounded half away from zero to a BigInt
    var n = x.n < 0n ? -x.n : x.n, q = n / x.d, r = n % x.d;
    if (2n * r >= x.d) q += 1n;
    return x.n < 0n ? -q : q;
  }
  function roundHalfAway(r, places) {
    if (places < 0) return mul(rat(halfAway(div(r, pow10(BigInt(-places))))), pow10(BigInt(-places)));
    var scale = 10n ** BigInt(places); // halfAway reads an unreduced fraction as well
    return rat(halfAway({ n: r.n * scale, d: r.d }), scale);
  }
  function decimalExponent(x) { // e with 10^e <= x < 10^(e+1), for x > 0
    var e = BigInt(x.n.toString().length - x.d.toString().length);
    while (cmp(pow10(e), x) > 0) e -= 1n;
    while (cmp(pow10(e + 1n), x) <= 0) e += 1n;
    return e;
  }
  function roundSig(x, sig) { // derive.kernel.intervals.sig_parts, as a rational
    if (x.n === 0n) return ZERO;
    var s = BigInt(sig), e = decimalExponent(absr(x)) - s + 1n;
    var m = halfAway(div(x, pow10(e)));
    var top = 10n ** s;
    if (m === top || m === -top) { m /= 10n; e += 1n; }
    return mul(rat(m), pow10(e));
  }
  function fixedStr(r, places) { // r (already a multiple of 10^-places) with that many places
    var p = BigInt(places), scaled = halfAway(mul(r, pow10(p)));
    var sign = scaled < 0n ? "-" : "";
    var digits = (scaled < 0n ? -scaled : scaled).toString();
    if (p === 0n) return sign + digits;
    while (digits.length <= places) digits = "0" + digits;
    var cut = digits.length - places;
    return sign + digits.slice(0, cut) + "." + digits.slice(cut);
  }

  // ---------------------------------------------------------------- reading students' text
  // Typed text is capped at MAX_ANSWER_TEXT characters before any other work, and every
  // pattern applied to it is anchored with no nested or adjacent repetition of one class:
  // each step is linear in the text's length.
  // Python's str.strip() / re's \s (str.isspace), which differ from JavaScript's \s.
  var WS = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
  var ONE_WS = new RegExp("^[" + WS + "]$");
  var FRACTION = new RegExp("^([+-]?[0-9]+)[" + WS + "]*/[" + WS + "]*([0-9]+)$");
  var DECIMAL = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;
  var MAX_DIGITS = 60, MAX_EXPONENT = 30n, MAX_NUMBER_TEXT = 2 * MAX_DIGITS + 8;
  var MAX_ANSWER_TEXT = 2000;

  function isWs(s, i) { return ONE_WS.test(s.charAt(i)); }
  function pyTrim(s) { // str.strip(), one pass from each end
    var a = 0, b = s.length;
    while (a < b && isWs(s, a)) a++;
    while (b > a && isWs(s, b - 1)) b--;
    return s.slice(a, b);
  }
  // NFKC, as an input method types: full-width digits, signs and points (１２, －３, ．５) are
  // the ASCII ones. Superscripts and subscripts are left as typed (NFKC would read 3² as 32):
  // they are not a number.
  var NOT_SCRIPT = /[^\u00b2\u00b3\u00b9\u2070-\u209f]+/g;
  function nfkc(s) {
    if (typeof s.normalize !== "function") return s;
    return s.replace(NOT_SCRIPT, function (run) { return run.normalize("NFKC"); });
  }
  function clean(text) { return pyTrim(nfkc(String(text)).replace(/\u2212/g, "-")); }
  function tooLong(text) { return String(text).length > MAX_ANSWER_TEXT; }
  function tooManyDigits(digits) { return digits.replace(/^0+/, "").length > MAX_DIGITS; }

  function parse(text) {
    if (tooLong(text)) return null;
    var s = clean(text);
    if (s.length > MAX_NUMBER_TEXT) return null;
    var m = FRACTION.exec(s);
    if (m) {
      if (tooManyDigits(m[1].replace(/^[+-]/, "")) || tooManyDigits(m[2])) return null;
      var den = BigInt(m[2]);
      if (den === 0n) return null;
      var r = rat(BigInt(m[1]), den);
      return { n: r.n, d: r.d, places: null, text: s, fraction: true };
    }
    m = DECIMAL.exec(s);
    if (!m || !(m[2] || m[3])) return null;
    var whole = m[2] || "", frac = m[3] || "", exp = m[4];
    if (tooManyDigits(whole + frac)) return null;
    var e = 0n;
    if (exp !== undefined) {
      if (exp.replace(/^[+-]/, "").replace(/^0+/, "").length > 3) return null;
      e = BigInt(exp);
      if (e > MAX_EXPONENT || -e > MAX_EXPONENT) return null;
    }
    var v = mul(rat(BigInt(whole + frac || "0"), 10n ** BigInt(frac.length)), pow10(e));
    if (m[1] === "-") v = neg(v);
    // decimal_places: None for an integer; max(len(frac) - exponent, 0) otherwise.
    var places = null;
    if (m[3] !== undefined || exp !== undefined) {
      // the exponent is checked above to be an integer of at most 30 in size: a count
      places = frac.length - Number(e);
      if (places < 0) places = 0;
    }
    return { n: v.n, d: v.d, places: places, text: s, fraction: false };
  }

  var SEPARATORS = /[,\uff0c\u3001]/;
  function parseAnswer(text, size) {
    if (tooLong(text)) return { ok: false, reason: "long" };
    return parseCleaned(clean(text), size);
  }
  function parseCleaned(s, size) { // parseAnswer on text already capped and cleaned
    if (s === "") return { ok: false, reason: "empty" };
    if (size === null || size === undefined) {
      var x = parse(s);
      return x ? { ok: true, values: [x] } : { ok: false, reason: "nan", text: s };
    }
    if (s.charAt(0) === "[" && s.charAt(s.length - 1) === "]") s = s.slice(1, -1);
    var pieces = s.split(SEPARATORS), values = [];
    for (var i = 0; i < pieces.length; i++) {
      var v = parse(pieces[i]);
      if (!v) return { ok: false, reason: "nan", text: pyTrim(pieces[i]) };
      values.push(v);
    }
    if (values.length !== size) return { ok: false, reason: "count", got: values.length };
    return { ok: true, values: values };
  }

  // ---------------------------------------------------------------- judging
  // A value V of the data: {q: "p/q"} exact, or {lo, hi} a certified enclosure.
  function readValue(V) {
    if (V.q !== undefined) return { exact: true, q: readRat(V.q) };
    return { exact: false, lo: readRat(V.lo), hi: readRat(V.hi) };
  }
  var READ = typeof WeakMap === "function" ? new WeakMap() : null;
  function asValue(V) { // read once per data value: its BigInts are reused by every judgement
    if (V.exact !== undefined) return V;
    var got = READ ? READ.get(V) : undefined;
    if (got === undefined) {
      got = readValue(V);
      if (READ) READ.set(V, got);
    }
    return got;
  }

  function equal(x, v) { // true / false / null (an enclosure cannot show equality)
    if (v.exact) return eq(x, v.q);
    if (cmp(x, v.lo) < 0 || cmp(x, v.hi) > 0) return false;
    return null;
  }
  function distance(x, v) { // [min, max] of |x - V| over V in the enclosure
    if (v.exact) { var d = absr(sub(x, v.q)); return [d, d]; }
    var a = absr(sub(x, v.lo)), b = absr(sub(x, v.hi));
    var hi = cmp(a, b) > 0 ? a : b;
    if (cmp(x, v.lo) >= 0 && cmp(x, v.hi) <= 0) return [ZERO, hi];
    return [cmp(a, b) < 0 ? a : b, hi];
  }
  function magnitude(v) { // [min, max] of |V|
    if (v.exact) { var a = absr(v.q); return [a, a]; }
    var l = absr(v.lo), h = absr(v.hi);
    var top = cmp(l, h) > 0 ? l : h;
    if (v.lo.n <= 0n && v.hi.n >= 0n) return [ZERO, top];
    return [cmp(l, h) < 0 ? l : h, top];
  }
  function roundedValue(v, places) { // V rounded at places, or null when undecided
    if (v.exact) return roundHalfAway(v.q, places);
    var a = roundHalfAway(v.lo, places), b = roundHalfAway(v.hi, places);
    return eq(a, b) ? a : null;
  }
  function roundedPlaces(x, v, places) { // claims._rounded_places
    var r = roundedValue(v, places);
    if (r !== null) return eq(r, roundHalfAway(x, places));
    var dist = distance(x, v);
    return cmp(dist[0], pow10(-BigInt(places))) >= 0 ? false : null;
  }
  function sigValue(v, sig) {
    if (v.exact) return roundSig(v.q, sig);
    if (v.lo.n <= 0n && v.hi.n >= 0n) return null;
    var a = roundSig(v.lo, sig), b = roundSig(v.hi, sig);
    return eq(a, b) ? a : null;
  }
  function atMost(range) { // whether an interval [lo, hi] is <= 0: true / false / null
    if (range[1].n <= 0n) return true;
    if (range[0].n > 0n) return false;
    return null;
  }
  function tolerance(rule) { return readRat(rule.tol); }

  function judgeScalar(x, V, rule) {
    var v = asValue(V);
    var isEqual = equal(x, v);
    if (isEqual) return "exact";
    var ok;
    if (rule && rule.kind === "test") {
      var t = tolerance(rule), d, m;
      if (rule.test === "places") {
        ok = roundedPlaces(x, v, t.n);
      } else if (rule.test === "sig") {
        var a = sigValue(v, t.n);
        ok = a === null ? null : eq(a, roundSig(x, t.n));
      } else if (rule.test === "rel") {
        d = distance(x, v); m = magnitude(v);
        ok = atMost([sub(d[0], mul(t, m[1])), sub(d[1], mul(t, m[0]))]);
      } else if (rule.test === "abs") {
        d = distance(x, v);
        ok = atMost([sub(d[0], t), sub(d[1], t)]);
      } else {
        throw new TypeError("unknown test " + rule.test);
      }
    } else if (x.places !== null && x.places !== undefined) {
      ok = roundedPlaces(x, v, x.places);
      if (ok === null) return "undecided";
      return ok ? "rounded" : "wrong";
    } else {
      return isEqual === false ? "wrong" : "undecided";
    }
    if (ok === null) return "undecided";
    return ok ? "within" : "wrong";
  }

  var RANK = { exact: 0, rounded: 1, within: 2, wrong: 3, undecided: 4 };
  function worst(statuses) { // claims.judge on a list
    if (statuses.indexOf("wrong") >= 0) return "wrong";
    var w = "exact";
    for (var i = 0; i < statuses.length; i++) if (RANK[statuses[i]] > RANK[w]) w = statuses[i];
    return w;
  }
  function expectedList(Q) { return Q.size === null || Q.size === undefined ? [Q.value] : Q.value; }
  function asList(values) { return Array.isArray(values) ? values : [values]; }
  function judgeEach(values, expected, rule) {
    var out = [];
    for (var i = 0; i < values.length; i++) out.push(judgeScalar(values[i], expected[i], rule));
    return out;
  }
  // judge(values, value, rule): the status of one parsed value or a list against V or [V, ...].
  function judge(values, value, rule) {
    var xs = asList(values), vs = asList(value);
    if (Array.isArray(values) !== Array.isArray(value) || xs.length !== vs.length) return "wrong";
    return worst(judgeEach(xs, vs, rule));
  }

  // ---------------------------------------------------------------- carried-forward values
  // evalExpr(E, answersByKey): the rational value of E, or null when an answer it names is
  // missing (or of the wrong shape) or it divides by zero.
  function evalExpr(E, answersByKey) { // one evaluator: a form's range, when it is one point
    var v = boxValue(E, answersByKey);
    return v !== null && v.exact ? v.q : null;
  }
  var MISSING = { missing: true };

  // ---------------------------------------------------------------- carried forms with roots
  // evalBox(E, env): an enclosure [lo, hi] of E (rationals), where a form holds square roots
  // (["s", x]: √x, bounded to SQRT_DIGITS places) or an earlier value is itself an
  // enclosure; env values are {n, d}, {lo, hi} or lists of them. Throws RangeError where E
  // is undefined or the bounds cannot show it defined (a root of a range reaching below 0, a
  // division by a range holding 0), MISSING where an answer is missing.
  var SQRT_DIGITS = 80n, BOX_SCALE = 10n ** 80n;
  // A range's ends are rounded outwards to 80 places once they carry longer fractions, so that
  // the cost of each operation stays bounded however deep the form (an exact value stays
  // exact: both its ends are the same rational).
  function outward(b) {
    if (isPoint(b) || (b[0].d <= BOX_SCALE && b[1].d <= BOX_SCALE)) return b;
    return [{ n: floorDiv(b[0].n * BOX_SCALE, b[0].d), d: BOX_SCALE },
            { n: -floorDiv(-b[1].n * BOX_SCALE, b[1].d), d: BOX_SCALE }];
  }
  function isqrt(n) { // floor(√n) for a BigInt n ≥ 0
    if (n < 2n) return n;
    var x = 1n << BigInt((n.toString(2).length + 1) >> 1);
    while (true) { var y = (x + n / x) >> 1n; if (y >= x) return x; x = y; }
  }
  function sqrtBox(q) { // [lo, hi] around √q for a rational q ≥ 0 (ends not reduced)
    var scale = 10n ** SQRT_DIGITS, m = q.n * q.d * scale * scale, r = isqrt(m);
    var den = q.d * scale;
    return [{ n: r, d: den }, { n: r * r === m ? r : r + 1n, d: den }];
  }
  // A range's ends are rationals left unreduced (a gcd costs more than the rounding outwards
  // that keeps them short); a point range is one reduced rational, computed exactly.
  function isPoint(b) { return b[0] === b[1] || cmp(b[0], b[1]) === 0; }
  function rawMul(a, b) { return { n: a.n * b.n, d: a.d * b.d }; }
  function rawAdd(a, b) { return { n: a.n * b.d + b.n * a.d, d: a.d * b.d }; }
  function rawInv(a) { return a.n < 0n ? { n: -a.d, d: -a.n } : { n: a.d, d: a.n }; }
  function rawPow(a, k) { return { n: a.n ** k, d: a.d ** k }; }
  function boxOf(v) { return v.lo !== undefined ? [v.lo, v.hi] : [rat(v.n, v.d), rat(v.n, v.d)]; }
  function minr(a, b) { return cmp(a, b) <= 0 ? a : b; }
  function maxr(a, b) { return cmp(a, b) >= 0 ? a : b; }
  function boxAdd(a, b) {
    if (isPoint(a) && isPoint(b)) { var s = add(a[0], b[0]); return [s, s]; }
    return [rawAdd(a[0], b[0]), rawAdd(a[1], b[1])];
  }
  function boxMul(a, b) {
    if (isPoint(a) && isPoint(b)) { var p = mul(a[0], b[0]); return [p, p]; }
    var c = [rawMul(a[0], b[0]), rawMul(a[0], b[1]), rawMul(a[1], b[0]), rawMul(a[1], b[1])];
    return [c.reduce(minr), c.reduce(maxr)];
  }
  function boxPow(a, k) {
    if (isPoint(a)) { var p = powr(a[0], k); return [p, p]; }
    if (k < 0n) {
      if (a[0].n <= 0n && a[1].n >= 0n) throw new RangeError("division by a range holding 0");
      a = [rawInv(a[1]), rawInv(a[0])];
      k = -k;
    }
    var lo = rawPow(a[0], k), hi = rawPow(a[1], k);
    if (k % 2n === 1n || a[0].n >= 0n || a[1].n <= 0n) return [minr(lo, hi), maxr(lo, hi)];
    return [ZERO, maxr(lo, hi)]; // an even power of a range holding 0
  }
  function evalBox(E, env) {
    var i, acc;
    switch (E[0]) {
      case "n": { // a constant, read once
        var c = READ ? READ.get(E) : undefined;
        if (c === undefined) { c = readRat(E[1]); if (READ) READ.set(E, c); }
        return [c, c];
      }
      case "a": {
        var got = env ? env[E[1]] : undefined;
        if (got === undefined || got === null) throw MISSING;
        if (E[2] === null || E[2] === undefined) {
          if (Array.isArray(got)) throw MISSING;
          return boxOf(got);
        }
        if (!Array.isArray(got) || E[2] < 0 || E[2] >= got.length) throw MISSING;
        return boxOf(got[E[2]]);
      }
      case "+":
        acc = [ZERO, ZERO];
        for (i = 1; i < E.length; i++) acc = outward(boxAdd(acc, evalBox(E[i], env)));
        return acc;
      case "*":
        acc = [ONE, ONE];
        for (i = 1; i < E.length; i++) acc = outward(boxMul(acc, evalBox(E[i], env)));
        return acc;
      case "^":
        return outward(boxPow(evalBox(E[1], env), BigInt(E[2])));
      case "s": {
        var x = evalBox(E[1], env);
        if (x[0].n < 0n) throw new RangeError("a root of a range reaching below 0");
        if (isPoint(x)) {
          var root = sqrtBox(x[0]);
          if (root[0].n === root[1].n) { var q = rat(root[0].n, root[0].d); return [q, q]; }
          return outward(root);
        }
        return outward([sqrtBox(x[0])[0], sqrtBox(x[1])[1]]);
      }
      default:
        throw new TypeError("unknown expression " + E[0]);
    }
  }
  // boxValue(E, env): E's value for judging: {exact: true, q} when it is one rational, else
  // the enclosure {exact: false, lo, hi}; null where E has none here.
  function boxValue(E, env) {
    try {
      var b = evalBox(E, env);
      return isPoint(b) ? { exact: true, q: rat(b[0].n, b[0].d) }
        : { exact: false, lo: b[0], hi: b[1] };
    } catch (err) {
      if (err instanceof RangeError || err === MISSING) return null;
      throw err;
    }
  }

  // ---------------------------------------------------------------- messages
  // {name} is the value; {name:one|many} the word for that count (derive.render.html.fill)
  // A parameter may be a list of parts: text, and a mistake's words {text, said} (said: the
  // id of the <template> derive typeset them in); fillParts keeps them as parts, fill reads
  // each as its text.
  var PLACEHOLDER = /\{([A-Za-z_]+)(?::([^|{}]*)\|([^{}]*))?\}/g;
  function partText(p) { return typeof p === "string" ? p : String(p.text); }
  function partsText(parts) { return parts.map(partText).join(""); }
  function fillParts(words, key, params) {
    var own = function (k) { return words && Object.prototype.hasOwnProperty.call(words, k); };
    if (params && String(params.places) === "1" && own(key + "_one")) key = key + "_one";
    var template = String(own(key) ? words[key] : key), out = [], last = 0, m;
    var re = new RegExp(PLACEHOLDER.source, "g");
    while ((m = re.exec(template)) !== null) {
      out.push(template.slice(last, m.index));
      last = re.lastIndex;
      var name = m[1], value = params && Object.prototype.hasOwnProperty.call(params, name)
        ? params[name] : undefined;
      if (value === undefined) out.push(m[0]);
      else if (m[2] !== undefined) out.push(String(value) === "1" ? m[2] : m[3]);
      else if (Array.isArray(value)) out = out.concat(value);
      else out.push(String(value));
    }
    out.push(template.slice(last));
    return out.reduce(function (parts, p) { // text that meets text is one part
      if (p === "") return parts;
      if (typeof p === "string" && typeof parts[parts.length - 1] === "string") {
        parts[parts.length - 1] += p;
      } else {
        parts.push(p);
      }
      return parts;
    }, []);
  }
  function fill(words, key, params) { return partsText(fillParts(words, key, params)); }

  var EXACT_RULE = { kind: "exact" };
  function near(x, v) { // a decimal certified within one step of its last place
    if (x.places === null || x.places === undefined) return false;
    return cmp(distance(x, asValue(v))[1], pow10(-BigInt(x.places))) < 0;
  }

  // ---------------------------------------------------------------- derive check's diagnosis
  // A typed answer is judged as the same claim in an exercise file (derive.exercises.claims):
  // its own text read as a number (a decimal's places from its digits), with the question's
  // test when its rule states one. A wrong answer is then diagnosed as
  // derive.exercises.diagnosis.diagnose diagnoses that claim, in its order: a float artefact,
  // a tie rounded to even, carried forward from the student's own wrong earlier answers, a
  // known mistake or an earlier quantity rounded early, unless the answer is one slip from
  // the right value. The data of each step is derive's (derive.exercises.selfcheck); where
  // the page cannot evaluate a step derive check would take, it names nothing ("unsure").
  var UNSURE = { unsure: true };
  function claimRule(rule) { return rule && rule.kind === "test" ? rule : EXACT_RULE; }
  function holdsAll(xs, vs, rule) { // claims.holds: true / false / null (undecided here)
    var list = asList(vs), undecided = false;
    if (list.length !== xs.length) return false;
    for (var i = 0; i < xs.length; i++) {
      if (list[i] === null || list[i] === undefined) return null;
      var s = judgeScalar(xs[i], list[i], rule);
      if (s === "wrong") return false;
      if (s === "undecided") undecided = true;
    }
    return undecided ? null : true;
  }
  function exactOf(V) { var v = asValue(V); return v.exact ? v.q : null; }
  function floorDiv(n, d) { return n >= 0n ? n / d : -((-n + d - 1n) / d); }
  function halfEvenInt(y) { // the even integer nearest y when y is exactly a tie, else null
    var f = floorDiv(y.n, y.d);
    if (!eq(sub(y, rat(f)), rat(1n, 2n))) return null;
    return f % 2n === 0n ? f : f + 1n;
  }
  function halfEvenPlaces(r, places) { // artefacts.half_even_places
    var m = halfEvenInt(mul(r, pow10(BigInt(places))));
    return m === null ? null : div(rat(m), pow10(BigInt(places)));
  }
  function halfEvenSig(r, sig) { // artefacts.half_even_sig
    if (r.n === 0n) return null;
    var x = absr(r), shift = BigInt(sig) - 1n - decimalExponent(x);
    var m = halfEvenInt(mul(x, pow10(shift)));
    if (m === null) return null;
    var out = div(rat(m), pow10(shift));
    return r.n > 0n ? out : neg(out);
  }
  function terminating(r) { // r as a terminating decimal, or null (artefacts.terminating)
    var d = r.d, places = 0;
    while (d % 10n === 0n) { d /= 10n; places++; }
    while (d % 2n === 0n) { d /= 2n; places++; }
    while (d % 5n === 0n) { d /= 5n; places++; }
    if (d !== 1n || places > 80) return null;
    var t = fixedStr(r, places);
    return t.replace(/^-?0*\.?/, "").replace(/0+$/, "").replace(".", "").length > 17 ? null : t;
  }
  function printedDouble(x) { // the decimal x is what a program prints for some double
    if (x.places === null || x.places === undefined || typeof x.text !== "string") return false;
    var f = Number(x.text);
    if (!isFinite(f)) return false;
    var back = parse(String(f));
    return back !== null && back.n === x.n && back.d === x.d;
  }
  // explained(xs, vs, rule, explains): [[index, result], ...] for every wrong element when
  // each is explained (index 1-based, 0 for a number), else null (diagnosis._explained).
  function explained(xs, vs, rule, isList, explains) {
    var list = asList(vs), out = [];
    for (var i = 0; i < xs.length; i++) {
      if (judgeScalar(xs[i], list[i], rule) !== "wrong") continue;
      var why = explains(xs[i], list[i], i);
      if (why === null) return null;
      out.push([isList ? i + 1 : 0, why, xs[i]]);
    }
    return out.length ? out : null;
  }
  function floatArtefact(xs, Q, rule, isList) {
    if (rule.kind === "test") return null;
    var windows = Q.artefact || [];
    return explained(xs, expectedList(Q), rule, isList, function (x, V, i) {
      var w = windows[i];
      if (!w || !printedDouble(x)) return null;
      if (cmp(x, readRat(w.lo)) < 0 || cmp(x, readRat(w.hi)) > 0) return null;
      var q = exactOf(V);
      return { write: q === null ? null : terminating(q), exact: q !== null };
    });
  }
  function tieToEven(x, V, rule) { // diagnosis._tie_to_even: [kind, digits, half away] | null
    var q = exactOf(V), kind = "places", digits, even;
    if (q === null) return null;
    if (rule.kind === "test" && rule.test === "sig") {
      kind = "sig"; digits = Number(tolerance(rule).n);
      even = halfEvenSig(q, digits);
    } else {
      if (rule.kind === "test" && rule.test !== "places") return null;
      digits = rule.kind === "test" ? Number(tolerance(rule).n) : x.places;
      if (digits === null || digits === undefined) return null;
      even = halfEvenPlaces(q, digits);
    }
    if (even === null || holdsAll([x], [{ exact: true, q: even }], rule) !== true) return null;
    return [kind, digits, sub(mul(rat(2n), q), even), q];
  }
  function digitSlips(text, leadingZero) { // near_miss.digit_slips
    var cut = text.toLowerCase().indexOf("e"), mantissa = cut < 0 ? text : text.slice(0, cut);
    var digits = [], out = [], seen = {}, k, step;
    for (k = 0; k < mantissa.length; k++) if (/[0-9]/.test(mantissa.charAt(k))) digits.push(k);
    for (var j = 0; j < digits.length; j++) {
      k = digits[j];
      for (step = -1; step <= 1; step += 2) {
        var d = Number(text.charAt(k)) + step, before = k > 0 ? text.charAt(k - 1) : "";
        var leading = k === digits[0] || (!/[0-9]/.test(before) && before !== ".");
        if (d < 0 || d > 9) continue;
        if (d === 0 && leading && /[0-9]/.test(text.charAt(k + 1)) && !leadingZero) continue;
        var t = text.slice(0, k) + d + text.slice(k + 1);
        if (t !== text && !seen[t]) { seen[t] = true; out.push(t); }
      }
    }
    return out;
  }
  function ratText(r) { return r.d === 1n ? r.n.toString() : r.n.toString() + "/" + r.d.toString(); }
  function rightText(x, V) { // near_miss._right_text
    var v = asValue(V);
    if (x.places !== null && x.places !== undefined) {
      var r = roundedValue(v, x.places);
      return r === null ? null : fixedStr(r, x.places);
    }
    if (x.fraction) return v.exact ? ratText(v.q) : null;
    return v.exact && v.q.d === 1n ? v.q.n.toString() : null;
  }
  function slipped(x, V, rule) { // near_miss._slipped
    var i, w;
    if (rule.kind !== "test") {
      var right = rightText(x, V);
      if (right === null) return false;
      if (x.fraction) {
        var written = x.text.replace(new RegExp("[" + WS + "]+", "g"), "").replace(/^\++/, "");
        return digitSlips(right, true).indexOf(written) >= 0;
      }
      var texts = [right], zero = parse(right);
      if (zero !== null && zero.n === 0n) texts.push("-" + right);
      for (var t = 0; t < texts.length; t++) {
        var slips = digitSlips(texts[t], false);
        for (i = 0; i < slips.length; i++) {
          w = parse(slips[i]);
          if (w !== null && w.n === x.n && w.d === x.d) return true;
        }
      }
      return false;
    }
    var own = digitSlips(x.text, false);
    for (i = 0; i < own.length; i++) {
      w = parse(own[i]);
      if (w !== null && judgeScalar({ n: w.n, d: w.d, places: null }, V, rule) !== "wrong") return true;
    }
    return false;
  }
  function roundedTwice(x, V, rule) { // near_miss._rounded_twice
    var d = rule.kind === "test" ? (rule.test === "places" ? Number(tolerance(rule).n) : null)
      : x.places;
    if (d === null || d === undefined) return false;
    for (var extra = 1; extra <= 2; extra++) {
      var first = roundedValue(asValue(V), d + extra);
      if (first !== null && eq(roundHalfAway(first, d), x)) return true;
    }
    return false;
  }
  function nearMiss(xs, Q, rule) { // near_miss.near_miss
    var expected = expectedList(Q), wrong = [];
    for (var i = 0; i < xs.length; i++) {
      if (judgeScalar(xs[i], expected[i], rule) !== "wrong") continue;
      wrong.push(i);
    }
    if (wrong.length !== 1) return false;
    var k = wrong[0];
    return slipped(xs[k], expected[k], rule) || roundedTwice(xs[k], expected[k], rule);
  }
  function combinations(items, size) { // itertools.combinations, in its order
    var out = [];
    (function pick(start, chosen) {
      if (chosen.length === size) { out.push(chosen.slice()); return; }
      for (var i = start; i < items.length; i++) { chosen.push(items[i]); pick(i + 1, chosen); chosen.pop(); }
    })(0, []);
    return out;
  }
  var ALL_SUBSETS_UP_TO = 6, MAX_CARRIED_SETS = 64;
  function carriedSets(movers) { // diagnosis.carried_sets
    if (movers.length < 2) return [];
    if (movers.length > ALL_SUBSETS_UP_TO) return [movers.slice()];
    var out = [];
    for (var size = 2; size <= movers.length; size++) out = out.concat(combinations(movers, size));
    return out.slice(0, MAX_CARRIED_SETS);
  }
  // The quantity computed from the answers to `group`, every other earlier question's
  // quantity computed from them too (derive check overrides only the group's claims): a list
  // of rationals, "static" (the group does not move it), or UNSURE. An earlier quantity the
  // group reaches is its own question's form evaluated the same way (overriding a quantity
  // with the value it would take anyway changes nothing); one the group does not reach is
  // its right value.
  function carriedValue(Q, group, answers, questions) {
    var c = Q.carried || {}, form = group.length === 1 ? c.single && c.single[group[0]] : undefined;
    var isList = !(Q.size === null || Q.size === undefined);
    if (form === undefined || form === null) form = c.all;
    if (form === "static") return "static";
    if (form === undefined || form === null) return UNSURE;
    var env = {}, single = group.length === 1 && c.single && form === c.single[group[0]];
    var earlier = Q.earlier || [];
    for (var e = 0; e < earlier.length; e++) {
      var key = earlier[e];
      if (group.indexOf(key) >= 0) { env[key] = answers[key]; continue; }
      if (single) continue; // the form reads only the group's answer
      var P = questions[key];
      if (!P) return UNSURE;
      var reach = group.filter(function (g) { return (P.earlier || []).indexOf(g) >= 0; });
      var got = reach.length ? carriedValue(P, reach, answers, questions) : "static";
      if (got === UNSURE) return UNSURE;
      got = (got === "static" ? asList(P.value).map(asValue) : got).map(function (v) {
        return v.exact ? v.q : { lo: v.lo, hi: v.hi }; // a right value may be an enclosure
      });
      env[key] = Array.isArray(P.value) ? got : got[0];
    }
    var exprs = isList ? form : [form], out = [];
    if (!Array.isArray(exprs)) return UNSURE;
    for (var k = 0; k < exprs.length; k++) {
      var r = boxValue(exprs[k], env);
      if (r === null) return UNSURE;
      out.push(r);
    }
    return out;
  }
  // isRight(values, Q): true when the values are the right ones, false when one is shown to
  // differ, null when enclosures cannot tell.
  function isRight(values, Q) {
    var expected = expectedList(Q), unsure = false;
    for (var i = 0; i < values.length; i++) {
      var e = asValue(expected[i]), v = values[i];
      var a = e.exact ? [e.q, e.q] : [e.lo, e.hi], b = v.exact ? [v.q, v.q] : [v.lo, v.hi];
      if (cmp(a[1], b[0]) < 0 || cmp(b[1], a[0]) < 0) return false;
      if (!(e.exact && v.exact)) unsure = true;
    }
    return unsure ? null : true;
  }
  function shaped(got, P) { // an answer of the question's shape (a number, or n values)
    if (got === undefined || got === null) return false;
    var isList = !(P.size === null || P.size === undefined);
    return Array.isArray(got) === isList && (!isList || got.length === P.size);
  }
  // diagnosis._carried: {sources: [key, ...]} | UNSURE | null
  function carriedFrom(xs, Q, rule, answers, questions) {
    var wrong = [], i;
    (Q.earlier || []).forEach(function (key) {
      var P = questions[key], got = answers[key];
      if (P && shaped(got, P) && holdsAll(asList(got), expectedList(P), claimRule(P.rule)) === false) {
        wrong.push(key);
      }
    });
    var movers = [];
    for (i = wrong.length - 1; i >= 0; i--) {
      var v = carriedValue(Q, [wrong[i]], answers, questions);
      if (v === "static") continue;
      if (v === UNSURE) return UNSURE;
      var h = holdsAll(xs, v, rule);
      if (h === null) return UNSURE;
      if (h) return { sources: [wrong[i]] };
      var same = isRight(v, Q);
      if (same === null) return UNSURE;
      if (!same) movers.unshift(wrong[i]);
    }
    var sets = carriedSets(movers);
    for (i = 0; i < sets.length; i++) {
      var w = carriedValue(Q, sets[i], answers, questions);
      if (w === "static") continue;
      if (w === UNSURE) return UNSURE;
      var hs = holdsAll(xs, w, rule);
      if (hs === null) return UNSURE;
      if (hs) return { sources: sets[i] };
    }
    return null;
  }
  function shownPlaces(key, answers, questions) { // diagnosis._shown_places of the answer
    var P = key ? questions[key] : null, got = key ? answers[key] : undefined;
    if (!P || !shaped(got, P) || Array.isArray(got) || (P.rule && P.rule.kind === "test")) return 0;
    if (got.places === null || got.places === undefined) return 0;
    var q = exactOf(P.value);
    return q !== null && eq(q, got) ? got.places : 0;
  }
  var ORIGINS = ["declared", "course", "generic"]; // derive.exercises.evidence.ORIGINS
  // diagnosis._fits weighed as evidence.weigh, then diagnosis._rounded_early:
  // {name, text, said} (named) | {certainty: "tied" | "offered", names, texts, said} | UNSURE
  // | null (said: the ids of the words' templates, null where they have none)
  function knownMistake(xs, Q, rule, isList, answers, questions) {
    var mistakes = Q.mistakes || [], i, h, fits = [], seen = {};
    for (i = 0; i < mistakes.length; i++) {
      if (seen[mistakes[i].name]) continue; // a mistake's first candidate value that fits
      if (mistakes[i].value === null) return UNSURE;
      h = holdsAll(xs, mistakes[i].value, rule);
      if (h === null) return UNSURE;
      if (h) { seen[mistakes[i].name] = true; fits.push(mistakes[i]); }
    }
    if (fits.length) {
      fits = fits.map(function (f, k) { return [ORIGINS.indexOf(f.origin || "course"), k, f]; })
        .sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; })
        .map(function (r) { return r[2]; });
      var names = fits.map(function (f) { return f.name; });
      var texts = fits.map(function (f) { return f.text; });
      var ids = fits.map(function (f) { return f.said || null; });
      if (fits.length > 1) return { certainty: "tied", names: names, texts: texts, said: ids };
      if (fits[0].origin === "generic") {
        return { certainty: "offered", names: names, texts: texts, said: ids };
      }
      return { name: fits[0].name, text: fits[0].text, said: ids[0] };
    }
    if (!isList && xs[0].fraction) return null; // a fraction is a slip of exact work
    var early = Q.early || [];
    for (i = 0; i < early.length; i++) {
      var e = early[i];
      if (e.places < shownPlaces(e.from, answers, questions)) continue;
      if (e.value === null) return UNSURE;
      h = holdsAll(xs, e.value, rule);
      if (h === null) return UNSURE;
      if (h) return { name: "rounded_early", text: e.text };
    }
    return null;
  }
  // diagnose(xs, Q, answers, questions): what derive check says of a wrong answer.
  function diagnose(xs, Q, answers, questions) {
    var rule = claimRule(Q.rule), isList = !(Q.size === null || Q.size === undefined);
    var found = floatArtefact(xs, Q, rule, isList);
    if (found) return { kind: "float", mistake: "float_artefact", elements: found };
    found = explained(xs, expectedList(Q), rule, isList, function (x, V) {
      return tieToEven(x, V, rule);
    });
    // an exact tie rounded to the even digit: rounding half to even or a floating-point value
    // a hair past the tie give it alike, so none is named (derive.exercises.diagnosis)
    if (found) return { kind: "half", mistake: null, elements: found };
    var from = carriedFrom(xs, Q, rule, answers, questions);
    if (from === UNSURE) return { kind: "unsure" };
    if (from) return { kind: "carried", sources: from.sources };
    var named = knownMistake(xs, Q, rule, isList, answers, questions);
    if (named === UNSURE) return { kind: "unsure" };
    if (named && nearMiss(xs, Q, rule)) return { kind: "near", also: named.names || [named.name] };
    if (named && named.certainty) {
      return { kind: named.certainty, also: named.names, texts: named.texts, said: named.said };
    }
    if (named) return { kind: "mistake", mistake: named.name, text: named.text, said: named.said };
    return { kind: "none" };
  }

  var pageWords = {}, pageQuestions = {}; // data.words and every question, once start has read them

  // A mistake's words as a part of a message: its text, and the id of the template derive
  // typeset them in (derive.render.html.said_templates) when they have math.
  function said(text, id) { return id ? { text: text, said: id } : text; }

  // classify(answer, Q, answersByKey[, words[, questions]]): {status, message, parts, key,
  // values, verdict, mistake, carried, unsure}; words default to the page's data.words, questions (every
  // question of the page by key, for the earlier ones) to the page's. The answer is read once.
  // A grid's cells (a vector's or a matrix's entries, row-major), each read as one number:
  // {ok: true, values} | {ok: false, reason: "empty" | "nan" | "long", cells: [index, ...],
  // text} (the cells that are not a number; text: the first one's).
  function parseGrid(texts, size) {
    if (!Array.isArray(texts) || texts.length !== size) return { ok: false, reason: "empty", cells: [] };
    var values = [], empty = [], bad = [], long = [], first = null;
    for (var i = 0; i < texts.length; i++) {
      if (tooLong(texts[i])) { long.push(i); continue; }
      var s = clean(texts[i]);
      if (s === "") { empty.push(i); continue; }
      var x = parse(s);
      if (x === null) { bad.push(i); if (first === null) first = s; continue; }
      values.push(x);
    }
    if (long.length) return { ok: false, reason: "long", cells: long };
    if (bad.length) {
      return { ok: false, reason: "nan", cells: bad.concat(empty).sort(function (a, b) { return a - b; }),
               text: first };
    }
    if (empty.length) return { ok: false, reason: "empty", cells: empty };
    return { ok: true, values: values };
  }
  function gridText(texts, Q) { // the typed grid as one line: rows separated by "; "
    var cols = Q.shape.length === 2 ? Q.shape[1] : 1, rows = [];
    for (var i = 0; i < texts.length; i += cols) {
      rows.push(texts.slice(i, i + cols).map(function (t) { return clean(t); }).join(", "));
    }
    return rows.join("; ");
  }
  function entryName(Q, i) { // entry i (0-based, row-major) as derive check writes it: (2,3)
    if (Q.shape.length === 1) return "(" + (i + 1) + ")";
    var cols = Q.shape[1];
    return "(" + ((i - i % cols) / cols + 1) + "," + (i % cols + 1) + ")";
  }

  function classify(answer, Q, answersByKey, words, questions) {
    if (words === undefined) words = pageWords;
    if (questions === undefined) questions = pageQuestions;
    answersByKey = answersByKey || {};
    var isList = !(Q.size === null || Q.size === undefined);
    var grid = Array.isArray(Q.shape) && Array.isArray(answer);
    var capped = !grid && tooLong(answer), parsed, text;
    if (grid) {
      parsed = parseGrid(answer, Q.size);
      text = parsed.reason === "long" ? "" : gridText(answer, Q);
    } else {
      text = capped ? String(answer).slice(0, 20) + "\u2026" : clean(answer);
      parsed = capped ? { ok: false, reason: "long" } : parseCleaned(text, isList ? Q.size : null);
    }
    var params = { answer: text, name: Q.name };
    var values = parsed.ok ? (isList ? parsed.values : parsed.values[0]) : undefined;
    var verdict = null, mistake = null, carriedNames = null, unsure = false;
    var cells = grid ? (parsed.ok ? [] : parsed.cells) : null;
    function out(status, key, extra) {
      var p = {};
      for (var a in params) p[a] = params[a];
      if (extra) for (var b in extra) p[b] = extra[b];
      var parts = fillParts(words, key, p);
      return { status: status, message: partsText(parts), parts: parts, key: key,
               answer: params.answer, values: values, verdict: verdict, mistake: mistake,
               carried: carriedNames, unsure: unsure, cells: cells };
    }
    if (!parsed.ok) {
      if (parsed.reason === "empty" && grid && parsed.cells.length < Q.size) {
        return out("nan", "grid_empty", { n: parsed.cells.length });
      }
      if (parsed.reason === "empty" && grid) cells = []; // nothing typed: no attempt, no mark
      if (parsed.reason === "empty") return out("nan", "empty");
      if (parsed.reason === "long") return out("nan", "too_long", { max: MAX_ANSWER_TEXT });
      if (parsed.reason === "count") {
        verdict = "wrong"; // derive check: a claim of the wrong shape, no mistake named
        return out("wrong", "wrong_count", { n: Q.size, m: parsed.got });
      }
      return out("nan", "not_a_number", { text: parsed.text });
    }
    var xs = parsed.values, expected = expectedList(Q), rule = Q.rule || EXACT_RULE;
    var statuses = judgeEach(xs, expected, claimRule(rule)), overall = worst(statuses), i;
    if (grid) { // each wrong entry, judged as derive check judges it (claims.judge)
      for (i = 0; i < statuses.length; i++) if (statuses[i] === "wrong") cells.push(i);
    }
    if (overall === "undecided") { verdict = "undecided"; return out("undecided", "undecided"); }
    if (overall !== "wrong") {
      verdict = "holds";
      if (overall === "exact") return out("right", "right");
      if (overall === "within") return out("right", "right_within");
      var least = null, enough = rule.kind === "places";
      for (i = 0; i < xs.length; i++) {
        if (statuses[i] !== "rounded") continue;
        if (least === null || xs[i].places < least) least = xs[i].places;
        if (!(xs[i].places >= rule.places)) enough = false;
      }
      if (enough) return out("right", "right_rounded", { places: least });
      return roundedMessage(out, rule);
    }
    verdict = "wrong";
    var d = diagnose(xs, Q, answersByKey, questions);
    if (d.kind === "float") {
      mistake = d.mistake;
      var f = d.elements[0];
      return out("wrong", f[1].write !== null ? "wrong_float"
                 : (f[1].exact ? "wrong_float_exact" : "wrong_float_round"),
                 { text: f[2].text, write: f[1].write, i: f[0] });
    }
    if (d.kind === "half") {
      mistake = d.mistake;
      var h = d.elements[0], tie = h[1];
      return out("wrong", tie[0] === "sig" ? "wrong_half_even_sig" : "wrong_half_even",
                 { text: h[2].text, exact: terminating(tie[3]) || ratText(tie[3]),
                   places: tie[1], away: terminating(tie[2]) || ratText(tie[2]) });
    }
    if (d.kind === "carried") {
      carriedNames = d.sources.map(function (key) { return questions[key].name; });
      var refs = d.sources.map(function (key) {
        var P = questions[key];
        return fill(words, "question_ref", { number: P.number, label: P.label });
      });
      return out("wrong", "wrong_carried", { names: refs.join(fill(words, "names_sep", {})) });
    }
    if (d.kind === "mistake") {
      mistake = d.mistake;
      return out("wrong", "wrong_mistake", { mistake: [said(d.text, d.said)] });
    }
    if (d.kind === "tied" || d.kind === "offered") { // the rule of evidence: none named
      var listed = [], sep = fill(words, "or_sep", {});
      d.texts.forEach(function (t, k) {
        if (k) listed.push(sep);
        listed.push(said(t, d.said && d.said[k]), " (" + d.also[k] + ")");
      });
      return out("wrong", "wrong_" + d.kind, { mistakes: listed });
    }
    unsure = d.kind === "unsure";
    // No name: a correct rounding short of the test, or a rounding one step off, is said so.
    var nearRounding = null, allRounded = true;
    for (i = 0; i < xs.length; i++) {
      if (statuses[i] !== "wrong") continue;
      var plain = rule.kind === "test" ? judgeScalar(xs[i], expected[i], EXACT_RULE) : "wrong";
      if (plain === "rounded") continue;
      if (plain === "wrong" && near(xs[i], expected[i])) {
        var r = roundedValue(asValue(expected[i]), xs[i].places);
        if (r !== null) {
          if (nearRounding === null) nearRounding = { places: xs[i].places, expected: fixedStr(r, xs[i].places) };
          continue;
        }
      }
      allRounded = false;
      break;
    }
    if (allRounded && nearRounding !== null) return out("rounded", "rounded_other", nearRounding);
    if (allRounded) return roundedMessage(out, rule);
    if (!isList) return out("wrong", "wrong");
    if (grid) {
      return out("wrong", "wrong_entries", { n: cells.length,
        at: cells.map(function (k) { return entryName(Q, k); }).join(", ") });
    }
    return out("wrong", "wrong_element", { i: statuses.indexOf("wrong") + 1 });
  }
  function roundedMessage(out, rule) {
    if (rule.kind === "places") return out("rounded", "rounded_places", { places: rule.places });
    if (rule.kind === "test") return out("rounded", "rounded_test");
    return out("rounded", "rounded_exact");
  }

  // ---------------------------------------------------------------- FNV-1a (32 bits)
  function utf8(str) {
    if (typeof TextEncoder !== "undefined") return new TextEncoder().encode(str);
    var bytes = [];
    for (var i = 0; i < str.length; i++) {
      var c = str.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < str.length) {
        var lo = str.charCodeAt(i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00); i++; }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // a lone surrogate, as TextEncoder writes it
      if (c < 0x80) bytes.push(c);
      else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return bytes;
  }
  function fnv1a(str) {
    var bytes = utf8(String(str)), h = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) {
      h ^= bytes[i];
      h = Math.imul(h, 0x01000193);
    }
    return h >>> 0;
  }

  // ---------------------------------------------------------------- the page
  function randomIndex(n) { // uniform in [0, n) from crypto; 0 without it
    var c = typeof crypto !== "undefined" ? crypto : null;
    if (!c || typeof c.getRandomValues !== "function" || n < 2) return 0;
    var limit = 4294967296 - (4294967296 % n), buf = new Uint32Array(1);
    do { c.getRandomValues(buf); } while (buf[0] >= limit);
    return buf[0] % n;
  }

  // The reader's answers, one record per page and variant: {questionKey: text}. Every call
  // survives a browser that refuses storage (disabled, full, a blocked file:// origin).
  function pageStore(doc, holderText) {
    var prefix = "derive-selfcheck:" + fnv1a(String(doc.title) + "\n" + holderText).toString(16) + ":";
    var store = null;
    try {
      store = typeof window !== "undefined" && window.localStorage ? window.localStorage : null;
    } catch (e) { store = null; }
    function get(name) {
      try { var t = store ? store.getItem(prefix + name) : null; return t === null ? null : JSON.parse(t); }
      catch (e) { return null; }
    }
    function put(name, value) {
      try { if (store) store.setItem(prefix + name, JSON.stringify(value)); } catch (e) { /* none */ }
    }
    function drop(name) {
      try { if (store) store.removeItem(prefix + name); } catch (e) { /* none */ }
    }
    return {
      variant: function () { var v = get("variant"); return typeof v === "number" ? v : null; },
      setVariant: function (i) { put("variant", i); },
      answers: function (v) { var a = get("v" + v); return a && typeof a === "object" ? a : {}; },
      setAnswer: function (v, key, text) {
        var a = get("v" + v);
        if (!a || typeof a !== "object") a = {};
        a[key] = Array.isArray(text) ? text.map(String) : String(text);
        put("v" + v, a);
      },
      clear: function (n) { drop("variant"); for (var i = 0; i < n; i++) drop("v" + i); }
    };
  }

  function start(doc) {
    var holder = doc.getElementById("derive-data");
    if (!holder) return;
    var data = JSON.parse(holder.textContent);
    // The LMS the page reports to (scorm.js), where one is found above it; the answers kept in
    // this browser are then the learner's own (their LMS id is in the key).
    var lms = typeof DeriveScorm !== "undefined" && typeof window !== "undefined"
      ? DeriveScorm.start(window, data.lang) : null;
    var saved = pageStore(doc, holder.textContent + (lms ? "\n" + lms.learner() : ""));
    var words = pageWords = data.words || {}, variants = data.variants || [], n = variants.length;
    var questions = pageQuestions = {}, answersByKey = {};
    variants.forEach(function (v) {
      var qs = v.questions || {};
      Object.keys(qs).forEach(function (k) { questions[k] = qs[k]; });
    });
    var note = doc.getElementById("derive-variant-note");
    var variantOf = {}, shown = 0, attempts = {};
    variants.forEach(function (v, i) {
      Object.keys(v.questions || {}).forEach(function (k) { variantOf[k] = i; });
    });

    function show(index) {
      shown = index;
      var sections = doc.querySelectorAll("section.variant");
      for (var i = 0; i < sections.length; i++) {
        sections[i].hidden = sections[i].getAttribute("data-variant") !== String(index);
      }
    }
    function say(el, key, params) { if (el) el.textContent = fill(words, key, params); }

    // A copy of derive's <template> `id` (made with the page), or null.
    function copyOf(id) {
      var t = id ? doc.getElementById(id) : null;
      return t && t.tagName === "TEMPLATE" && t.content ? doc.importNode(t.content, true) : null;
    }
    // A mistake's typeset words: a copy of their template, with a copy of each formula's
    // template in its slot (derive.render.html.said_templates); null where one is missing.
    function typeset(id) {
      var words = copyOf(id);
      if (!words) return null;
      var slots = words.querySelectorAll("span.math[data-math]");
      for (var i = 0; i < slots.length; i++) {
        var math = copyOf(slots[i].getAttribute("data-math"));
        if (!math) return null;
        slots[i].appendChild(math);
      }
      return words;
    }
    // A message into el: its text as text nodes, a mistake's typeset words as their copy (no
    // HTML is read from data), or as their text where the page has no template of them.
    function write(el, parts) {
      el.textContent = partsText(parts);
      if (!parts.some(function (p) { return typeof p !== "string" && p.said; })) return;
      el.textContent = "";
      parts.forEach(function (p) {
        var shown = typeof p === "string" ? null : typeset(p.said);
        el.appendChild(shown || doc.createTextNode(partText(p)));
      });
    }

    // A formula or table wider than its box scrolls in it: focusable, named, marked (the
    // stylesheet shows the mark and the edge shadows); one that fits is left as it is.
    function markScrolling() {
      [["div.display", "scroll_formula"], ["div.table", "scroll_table"]].forEach(function (kind) {
        Array.prototype.forEach.call(doc.querySelectorAll(kind[0]), function (el) {
          if (el.scrollWidth > el.clientWidth) {
            el.setAttribute("tabindex", "0");
            el.setAttribute("role", "region");
            el.setAttribute("aria-label", fill(words, kind[1], {}));
            el.setAttribute("data-scrolls", "true");
          } else if (el.getAttribute("data-scrolls") !== null) {
            ["tabindex", "role", "aria-label", "data-scrolls"].forEach(function (a) {
              el.removeAttribute(a);
            });
          }
        });
      });
    }
    if (typeof window !== "undefined" && window.addEventListener) {
      window.addEventListener("resize", markScrolling);
    }

    var kept = saved.variant();
    if (kept === null && lms) kept = lms.kept().variant; // the LMS's, from another browser
    if (n > 0) {
      var first = kept !== null && kept >= 0 && kept < n ? kept : randomIndex(n);
      show(first);
      markScrolling();
      if (n >= 2) say(note, "variant_note", { i: first + 1, n: n });
    }

    var form = doc.getElementById("derive-variant");
    if (form && n >= 2) {
      form.addEventListener("submit", function (ev) {
        ev.preventDefault();
        var field = doc.getElementById("derive-student");
        var typed = field ? String(field.value) : "";
        if (tooLong(typed)) return;
        var who = pyTrim(nfkc(typed));
        if (who === "") return;
        var i = fnv1a(who) % n;
        show(i);
        saved.setVariant(i);
        restore(i);
        markScrolling();
        say(note, "student_variant_note", { i: i + 1, n: n });
      });
    }

    // A vector's or a matrix's grid of inputs (row-major), or null for a one-line answer.
    function cellsOf(key) {
      var grid = doc.getElementById(key + "-input");
      if (!grid || !grid.classList || !grid.classList.contains("grid")) return null;
      return Array.prototype.slice.call(grid.querySelectorAll("input"));
    }
    function typedIn(key, input) {
      var cells = cellsOf(key);
      return cells ? cells.map(function (c) { return String(c.value); }) : input.value;
    }
    // Each cell the judgement found wrong (or not a number, or empty) is marked: aria-invalid
    // for a screen reader, and its box's data-wrong, which the stylesheet shows as a mark
    // beside the entry and a dashed border (not by colour alone); the others are cleared.
    function mark(key, wrong) {
      var cells = cellsOf(key);
      if (!cells) return;
      cells.forEach(function (c, i) {
        var bad = !!wrong && wrong.indexOf(i) >= 0, box = c.parentNode;
        if (bad) c.setAttribute("aria-invalid", "true"); else c.removeAttribute("aria-invalid");
        if (box && box.classList && box.classList.contains("cell")) {
          if (bad) box.setAttribute("data-wrong", "true"); else box.removeAttribute("data-wrong");
        }
      });
    }

    // A message the same as the last one is said again with its count ("(checked 2 times)"):
    // the live region's text changes, so a screen reader announces it again.
    function check(key, restoring) {
      var Q = questions[key], input = doc.getElementById(key + "-input");
      if (!Q || !input) return;
      var text = typedIn(key, input);
      answersByKey[key] = undefined; // an answer never carries forward from itself
      var result = classify(text, Q, answersByKey, words, questions);
      answersByKey[key] = result.values;
      mark(key, result.cells);
      var feedback = doc.getElementById(key + "-feedback");
      if (feedback) {
        var last = attempts[key];
        var count = last && last.message === result.message ? last.count + 1 : 1;
        attempts[key] = { message: result.message, count: count };
        write(feedback, count > 1
          ? result.parts.concat([" " + fill(words, "again", { n: count })]) : result.parts);
        feedback.setAttribute("data-status", result.status);
      }
      if (lms && variantOf[key] !== undefined) {
        lms.record(key, Q, result, Object.keys(variants[variantOf[key]].questions || {}),
                   text, variantOf[key]);
      }
      var reveal = revealOf[key];
      if (reveal && result.key !== "empty") reveal.disabled = false; // only after an attempt
      if (!restoring && result.key !== "empty" && variantOf[key] !== undefined) {
        saved.setAnswer(variantOf[key], key, text);
        saved.setVariant(shown);
      }
    }

    // The variant's kept answers, typed back and judged again in the page's order (an answer
    // may carry forward from an earlier one).
    // An answer kept in this browser, else one the LMS keeps (the learner's, from anywhere).
    function restore(v) {
      var kept = saved.answers(v), fromLms = lms ? lms.kept().answers : {};
      Object.keys((variants[v] || {}).questions || {}).forEach(function (key) {
        var input = doc.getElementById(key + "-input"), cells = cellsOf(key);
        var got = kept[key] !== undefined ? kept[key] : fromLms[key];
        if (!input) return;
        if (cells) {
          if (!Array.isArray(got) || got.length !== cells.length) return;
          cells.forEach(function (c, i) { c.value = String(got[i]); });
        } else {
          if (typeof got !== "string") return;
          input.value = got;
        }
        check(key, true);
      });
    }

    function startOver() {
      saved.clear(n);
      Object.keys(questions).forEach(function (key) {
        var input = doc.getElementById(key + "-input"), feedback = doc.getElementById(key + "-feedback");
        if (input) input.value = "";
        (cellsOf(key) || []).forEach(function (c) { c.value = ""; });
        mark(key, []);
        if (feedback) { feedback.textContent = ""; feedback.removeAttribute("data-status"); }
        var working = doc.getElementById(key + "-working"), reveal = revealOf[key];
        if (working) working.hidden = true;
        if (reveal) {
          reveal.disabled = true;
          reveal.setAttribute("aria-expanded", "false");
          reveal.textContent = fill(words, "show_working", {});
        }
        answersByKey[key] = undefined;
      });
      attempts = {};
      if (lms) lms.startOver(Object.keys((variants[shown] || {}).questions || {}));
    }

    var reveals = doc.querySelectorAll("button.reveal[data-q]"), revealOf = {};
    Array.prototype.forEach.call(reveals, function (button) {
      revealOf[button.getAttribute("data-q")] = button;
    });
    var buttons = doc.querySelectorAll("button.check[data-q]");
    Array.prototype.forEach.call(buttons, function (button) {
      var key = button.getAttribute("data-q");
      button.addEventListener("click", function () { check(key); });
      var input = doc.getElementById(key + "-input");
      (cellsOf(key) || (input ? [input] : [])).forEach(function (field) {
        field.addEventListener("keydown", function (ev) {
          if (ev.key === "Enter") { ev.preventDefault(); check(key); }
        });
      });
    });

    var again = doc.getElementById("derive-start-over");
    if (again) {
      again.hidden = false;
      again.addEventListener("click", startOver);
    }
    if (n > 0) restore(shown);

    Array.prototype.forEach.call(reveals, function (button) {
      var key = button.getAttribute("data-q");
      button.addEventListener("click", function () {
        var working = doc.getElementById(key + "-working");
        if (!working) return;
        var open = working.hidden;
        working.hidden = !open;
        button.setAttribute("aria-expanded", open ? "true" : "false");
        button.textContent = fill(words, open ? "hide_working" : "show_working", {});
        if (open) markScrolling();
      });
    });
  }

  // parse(text) -> {n, d, places} | null
  // parseAnswer(text, size) -> {ok: true, values} | {ok: false, reason: "nan", text}
  //                            | {ok: false, reason: "count", got} | {ok: false, reason: "empty"}
  //                            | {ok: false, reason: "long"} (over MAX_ANSWER_TEXT characters)
  // roundHalfAway({n, d}, places) -> {n, d}
  // judgeScalar(x, V, rule) -> "exact" | "within" | "rounded" | "wrong" | "undecided"
  // judge(x | [x, ...], V | [V, ...], rule) -> the same, for one value or a list
  // classify(text, Q, answersByKey[, words[, questions]]) -> {status, message, parts, key,
  //   answer (the answer as one line of text), values, verdict, mistake, carried, unsure} (message: the plain text; parts: the same
  //   as text and {text, said} for a mistake's typeset words; values: the parsed answer, one
  //   {n, d, places, text, fraction} or a list, undefined when it is not one; verdict:
  //   "holds" | "wrong" | "undecided" | null; mistake: derive's name or null; carried: the quantities' names the
  //   error is carried from, or null; unsure: the page could not tell and named nothing)
  // evalExpr(E, answersByKey) -> {n, d} | null
  // fnv1a(str) -> unsigned 32-bit Number
  // start(document)
  return {
    parse: parse,
    parseAnswer: parseAnswer,
    roundHalfAway: roundHalfAway,
    judgeScalar: judgeScalar,
    judge: judge,
    classify: classify,
    evalExpr: evalExpr,
    fnv1a: fnv1a,
    fill: fill,
    start: start
  };
})();
if (typeof document !== "undefined") { DeriveCheck.start(document); }
