"use strict";
/* derive self-check page: its report to a learning management system, through the SCORM API
 * the LMS puts in a window above the page (SCORM 2004's API_1484_11, else SCORM 1.2's API).
 *
 * The page judges every answer itself (page.js, derive's judge); this file only writes down
 * what the page decided, after each check: the question's interaction (its quantity as id, the
 * learner's response as typed, correct / incorrect, and in SCORM 2004 the page's feedback with
 * the named mistake or the question an error is carried from), the score (the share of the
 * questions asked that are right, as a percentage), completion and success; commit after each check, and terminate when
 * the page is hidden for good (pagehide). The feedback on the page stays derive's whole
 * feedback. Without an API, or with one that throws, the page works as it does without an LMS:
 * every call is guarded, and nothing here touches the page.
 *
 * Counts and comparisons are exact (integers and BigInt rationals): a question counts as right
 * only where the page said right; a success is decided only where every count the undecided
 * answers could still make gives the same one.
 */
var DeriveScorm = (function () {
  var MAX_PARENTS = 500; // ADL's API discovery searches at most this many parents

  // A window's own API object, or null (reading a window of another origin throws).
  function own(win, name, calls) {
    try {
      var api = win[name];
      if (!api || (typeof api !== "object" && typeof api !== "function")) return null;
      for (var i = 0; i < calls.length; i++) if (typeof api[calls[i]] !== "function") return null;
      return api;
    } catch (e) { return null; }
  }
  // ADL's algorithm: the window, then its parents; then the opener and its parents.
  function search(win, name, calls) {
    for (var n = 0; win && n <= MAX_PARENTS; n++) {
      var api = own(win, name, calls);
      if (api) return api;
      var parent = null;
      try { parent = win.parent; } catch (e) { parent = null; }
      if (!parent || parent === win) break;
      win = parent;
    }
    return null;
  }
  function discover(win, name, calls) {
    var api = search(win, name, calls), opener = null;
    if (api) return api;
    try { opener = win.opener; } catch (e) { opener = null; }
    return opener ? search(opener, name, calls) : null;
  }

  var V2004 = { name: "API_1484_11", calls: ["Initialize", "Terminate", "GetValue", "SetValue", "Commit"],
                init: "Initialize", finish: "Terminate", get: "GetValue", set: "SetValue", commit: "Commit",
                response: "learner_response", wrong: "incorrect", learner: "cmi.learner_id",
                passing: "cmi.scaled_passing_score", suspend: "cmi.suspend_data", room: 64000 };
  var V12 = { name: "API", calls: ["LMSInitialize", "LMSFinish", "LMSGetValue", "LMSSetValue", "LMSCommit"],
              init: "LMSInitialize", finish: "LMSFinish", get: "LMSGetValue", set: "LMSSetValue",
              commit: "LMSCommit", response: "student_response", wrong: "wrong",
              learner: "cmi.core.student_id", passing: "cmi.student_data.mastery_score",
              suspend: "cmi.suspend_data", room: 4096 };

  // The API's calls, each guarded: an LMS that throws or answers oddly never stops the page.
  function adapter(api, v) {
    function call(fn, args) {
      try { return String(api[fn].apply(api, args)); } catch (e) { return ""; }
    }
    return {
      is2004: v === V2004,
      init: function () { return call(v.init, [""]) === "true"; },
      get: function (k) { return call(v.get, [k]); },
      set: function (k, value) { return call(v.set, [k, String(value)]) === "true"; },
      commit: function () { call(v.commit, [""]); },
      finish: function () { call(v.finish, [""]); }
    };
  }

  var DECIMAL = /^-?[0-9]{1,10}(\.[0-9]{1,18})?$/; // what a numeric response may be (CMIDecimal)
  var EXACT_DECIMAL = /^(-?)([0-9]+)(?:\.([0-9]+))?$/;

  // An LMS's decimal ("80", "0.75") as a BigInt fraction {n, d}, or null.
  function decimal(text) {
    var m = EXACT_DECIMAL.exec(String(text).trim());
    if (!m) return null;
    var frac = m[3] || "", n = BigInt(m[2] + frac);
    return { n: m[1] === "-" ? -n : n, d: 10n ** BigInt(frac.length) };
  }
  // n / d (integers, 0 <= n, 0 < d) as a decimal of at most 7 places (SCORM 2004's
  // real(10,7)), cut, never rounded up: the LMS is never told more than was earned.
  function cut(n, d) {
    var digits = (BigInt(n) * 10000000n / BigInt(d)).toString();
    while (digits.length < 8) digits = "0" + digits;
    var whole = digits.slice(0, -7), places = digits.slice(-7).replace(/0+$/, "");
    return places === "" ? whole : whole + "." + places;
  }
  // Text the data model keeps on one line, at most `max` UTF-16 units (a pair never split).
  function oneLine(text, max) {
    var s = String(text).replace(/\s+/g, " ").trim();
    if (s.length <= max) return s;
    var end = max - 1, code = s.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    return s.slice(0, end) + "\u2026";
  }
  // An interaction's id from its quantity's name: printable ASCII, no space (CMIIdentifier).
  function interactionId(name) {
    var id = encodeURIComponent(String(name)).replace(/[!'()*~]/g, function (c) {
      return "%" + c.charCodeAt(0).toString(16).toUpperCase();
    });
    return id === "" ? "q" : id;
  }

  // The page's connection to an LMS, or null where no SCORM API is found (or it will not
  // initialize): `win` is the page's window.
  function connect(win, lang) {
    if (!win) return null;
    var v = null, api = discover(win, V2004.name, V2004.calls);
    if (api) v = V2004;
    else {
      api = discover(win, V12.name, V12.calls);
      if (api) v = V12;
    }
    if (!api) return null;
    var lms = adapter(api, v);
    if (!lms.init()) return null;
    var ended = false, results = {}, index = {}, tag = lang === "zh" ? "{lang=zh-Hans}" : "{lang=en}";
    // The answers the LMS keeps for the page (cmi.suspend_data, written by this file): a
    // learner who comes back from another browser finds them typed back and judged again.
    var kept = { variant: null, answers: {} };
    try {
      var suspended = JSON.parse(lms.get(v.suspend) || "null");
      if (suspended && suspended.derive === 1 && suspended.answers && typeof suspended.answers === "object") {
        kept.answers = suspended.answers;
        if (typeof suspended.variant === "number") kept.variant = suspended.variant;
      }
    } catch (e) { /* not ours, or none: nothing kept */ }
    var count = parseInt(lms.get("cmi.interactions._count"), 10);
    if (!(count >= 0)) count = 0;
    if (lms.is2004) { // SCORM 2004 reads its interactions back: a question keeps its record
      for (var i = 0; i < count; i++) index[lms.get("cmi.interactions." + i + ".id")] = i;
    }
    if (lms.is2004) {
      var completion = lms.get("cmi.completion_status");
      if (completion === "unknown" || completion === "not attempted" || completion === "") {
        lms.set("cmi.completion_status", "incomplete");
      }
    } else {
      var status = lms.get("cmi.core.lesson_status");
      if (status === "not attempted" || status === "") lms.set("cmi.core.lesson_status", "incomplete");
    }
    lms.commit();

    function slot(id) { // the interaction's index: its own, else the next one
      if (index[id] === undefined) index[id] = count++;
      return "cmi.interactions." + index[id] + ".";
    }
    // The success the LMS's threshold gives, as counts: right answers `lo`, right answers if
    // every undecided one were right `hi`, of `total`. null: not decided by the counts.
    function success(lo, hi, total) {
      var t = decimal(lms.get(v.passing)), scale = lms.is2004 ? 1n : 100n;
      function meets(right) {
        if (t === null) return right >= total; // no threshold: every question right
        return BigInt(right) * scale * t.d >= t.n * BigInt(total);
      }
      if (meets(lo)) return true;
      if (!meets(hi)) return false;
      return null;
    }
    // Score, completion and success from the page's last verdict on each of `keys`.
    function standing(keys) {
      var right = 0, undecided = 0, answered = 0, total = keys.length;
      keys.forEach(function (k) {
        var r = results[k];
        if (r === undefined) return;
        answered += 1;
        if (r === "right") right += 1;
        if (r === "undecided") undecided += 1;
      });
      var done = total > 0 && answered === total;
      var passed = done ? success(right, right + undecided, total) : null;
      // raw as a percentage (min 0, max 100): what LMSs grade by (Moodle's maximum grade is
      // 100 by default and reads raw as points of it)
      if (total > 0) {
        lms.set(lms.is2004 ? "cmi.score.min" : "cmi.core.score.min", "0");
        lms.set(lms.is2004 ? "cmi.score.max" : "cmi.core.score.max", "100");
        lms.set(lms.is2004 ? "cmi.score.raw" : "cmi.core.score.raw", cut(100 * right, total));
      }
      if (lms.is2004) {
        if (total > 0) lms.set("cmi.score.scaled", cut(right, total));
        lms.set("cmi.completion_status", done ? "completed" : "incomplete");
        lms.set("cmi.success_status", passed === null ? "unknown" : (passed ? "passed" : "failed"));
      } else {
        lms.set("cmi.core.lesson_status", !done ? "incomplete" :
                (passed === null ? "completed" : (passed ? "passed" : "failed")));
      }
    }
    return {
      version: lms.is2004 ? "2004" : "1.2",
      learner: function () { return lms.get(v.learner); },
      kept: function () { return kept; },
      // One check of question `key` (Q its data, `keys` the questions of its variant):
      // `result` is page.js's classify(); an answer that is no number is not recorded.
      record: function (key, Q, result, keys, typed, variant) {
        if (ended || !result || ["right", "wrong", "rounded", "undecided"].indexOf(result.status) < 0) return;
        results[key] = result.status;
        kept.answers[key] = typed;
        kept.variant = typeof variant === "number" ? variant : kept.variant;
        var keeping = JSON.stringify({ derive: 1, variant: kept.variant, answers: kept.answers });
        if (keeping.length <= v.room) lms.set(v.suspend, keeping); // else kept in this browser only
        var at = slot(interactionId(Q.name)), answer = oneLine(result.answer, 250);
        var numeric = (Q.size === null || Q.size === undefined) && DECIMAL.test(answer);
        lms.set(at + "id", interactionId(Q.name));
        lms.set(at + "type", numeric ? "numeric" : "fill-in");
        if (!numeric && answer.charAt(0) === "{") answer = " " + answer; // never read as a tag
        lms.set(at + v.response, answer);
        lms.set(at + "result", result.status === "right" ? "correct" :
                (result.status === "undecided" ? "neutral" : v.wrong));
        if (lms.is2004) {
          var named = result.mistake ? " [" + result.mistake + "]" :
            (result.carried ? " [carried: " + result.carried.join(", ") + "]" : "");
          var said = oneLine(Q.label + (lang === "zh" ? "\uff1a" : ": ") + result.message,
                             248 - named.length) + named;
          lms.set(at + "description", tag + said.replace(/^\{/, "("));
        }
        standing(keys);
        lms.commit();
      },
      // The page's start over: its answers are gone, so its standing is none answered.
      startOver: function (keys) {
        if (ended) return;
        results = {};
        kept = { variant: kept.variant, answers: {} };
        lms.set(v.suspend, JSON.stringify({ derive: 1, variant: kept.variant, answers: {} }));
        standing(keys);
        lms.commit();
      },
      end: function () {
        if (ended) return;
        ended = true;
        lms.set(lms.is2004 ? "cmi.exit" : "cmi.core.exit", "suspend");
        lms.commit();
        lms.finish();
      }
    };
  }

  // The page's LMS, found and initialized once, and ended when the page is hidden for good
  // (pagehide: the learner leaves the SCO or closes it; the LMS's window outlives it).
  function start(win, lang) {
    var lms = connect(win, lang);
    if (lms && win.addEventListener) win.addEventListener("pagehide", function () { lms.end(); });
    return lms;
  }

  return { start: start, connect: connect, cut: cut, interactionId: interactionId };
})();
